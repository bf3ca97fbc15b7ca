// Bound inference: the root domain of every computed stage.
//
// A stage at the root spans its whole shape. A stage computed inside a consumer's loop spans
// only the region that the consumer reads during one iteration of that loop: each index the
// consumer uses is expressed in the consumer's leaf loop variables, the loops inside the
// attach point are relaxed over their ranges, and the union of the results is intersected with
// the tensor's shape. Its other readers run inside that loop too: attached there, or inside a
// stage attached there (a reduction's local accumulator), whose loops are relaxed as well. On GPUs
// a "shared" buffer serves every thread of a block, so the consumers' loops bound to threadIdx are
// relaxed as well (blockIdx too for "global"); a "local" buffer is per thread. Region extents must
// be constants (they size the buffer); where they are not provably constant, the stage falls back
// to its whole shape, which is always correct.
#ifndef TUNEFARM_COMPILER_LOWER_INFER_BOUND_H_
#define TUNEFARM_COMPILER_LOWER_INFER_BOUND_H_

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "compiler/lower/stage_loops.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::lower {

using Bodies = absl::flat_hash_map<const te::OperationNode*, ir::Expr>;
using Domains = absl::flat_hash_map<const te::OperationNode*, RootDomain>;

// `bodies` are the stage bodies after inlining. InvalidArgument: a shape that is not a
// positive constant after binding.
absl::StatusOr<Domains> InferBound(const schedule::Schedule& sch, const Bodies& bodies,
                                   const ir::VarMap& bindings);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_INFER_BOUND_H_
