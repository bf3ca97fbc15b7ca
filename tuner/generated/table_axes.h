// Which axes of a stage index a table. A table is a stage computed from its indices alone (no
// tensor read, no reduction; te::AsTable): a constant(...) of the language, such as Winograd's
// transform matrices. A stage that multiplies by a table element indexed by its own loop variables
// (the transform D[i, ...] = Σ_a Bt[i, a] · P[a, ...]) computes a small matrix product whose
// factors are known: unrolled over the table's whole extent, each element is a literal
// (lower/fold_table_loads.h), the products by 0 drop out, and each value loaded from the other
// factor serves every row of the matrix. The generated space tiles such axes whole and unrolls
// them (generated_space.cc), as TVM's Winograd schedules unroll their transform matrices,
// instead of searching their tiles.
#ifndef TUNEFARM_TUNER_GENERATED_TABLE_AXES_H_
#define TUNEFARM_TUNER_GENERATED_TABLE_AXES_H_

#include <cstdint>

#include "absl/container/flat_hash_set.h"
#include "compiler/ir/ir.h"
#include "compiler/te/tensor.h"

namespace tunefarm::tuner {

// Longest axis tiled whole by the rule: its register tile or unrolled reduction is that long.
inline constexpr int64_t kMaxTableAxis = 8;

// The variables of `stage`'s axes (data-parallel and reduction) with constant extent of at most
// kMaxTableAxis that are the whole index of a dimension of a table the stage reads.
absl::flat_hash_set<const ir::VarNode*> TableAxes(const te::Tensor& stage);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_TABLE_AXES_H_
