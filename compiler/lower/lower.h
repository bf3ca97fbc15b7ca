// The lowering pipeline: schedule → flat, vectorized, simplified loop nest, one pass a line
// in lower.cc. Set LowerOptions::dump_to to see the IR after each pass.
#ifndef TUNEFARM_COMPILER_LOWER_LOWER_H_
#define TUNEFARM_COMPILER_LOWER_LOWER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/lower/lowered_func.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::lower {

// Lowers `sch` into a kernel named `name` taking `args` (inputs first, then outputs).
// InvalidArgument: a name that is not a C identifier, an output or input of the schedule
// missing from args, a duplicate argument, an unbound symbolic shape.
// FailedPrecondition: a schedule that lowering finds invalid (e.g. nested parallel loops).
absl::StatusOr<LoweredFunc> Lower(const schedule::Schedule& sch,
                                  const std::vector<te::Tensor>& args, const std::string& name,
                                  const LowerOptions& options = {});

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_LOWER_H_
