// Distance between the argument lists of two workloads of the same template, used to answer a
// best-k query for a shape nobody tuned with the nearest shape somebody did.
#ifndef TUNEFARM_DB_NEAREST_SHAPE_H_
#define TUNEFARM_DB_NEAREST_SHAPE_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace tunefarm::db {

// Distance between two canonical JSON argument arrays, e.g. `[1024,1024,1024,"float32"]` and
// `[512,1024,2048,"float32"]`. Both are flattened into their leaves in order; they are
// comparable only when they have the same number of leaves and every non-numeric leaf
// (dtype strings, nulls, bools) is equal. The distance is then the sum over numeric leaves of
// |log(a / b)| (so 512 vs 1024 costs as much as 1024 vs 2048), where a pair with a
// non-positive value contributes 0 if equal and |a - b| otherwise.
// Returns nullopt when not comparable or when either text is not valid JSON.
std::optional<double> ShapeDistance(absl::string_view args_a, absl::string_view args_b);

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_NEAREST_SHAPE_H_
