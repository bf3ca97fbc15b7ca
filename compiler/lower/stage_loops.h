// The loop structure of one stage: leaf loop extents from its root domain and split/fuse
// relations, the value of each root axis in terms of the leaf loop variables, and the guards
// that non-divisible splits need. Shared by bound inference and loop-nest construction.
#ifndef TUNEFARM_COMPILER_LOWER_STAGE_LOOPS_H_
#define TUNEFARM_COMPILER_LOWER_STAGE_LOOPS_H_

#include <cstdint>
#include <map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/ir_util.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::lower {

// Where a stage's root axes start and how far they run. Extents are constants.
struct RootDomain {
  std::vector<ir::Expr> min;    // One per data-parallel root axis.
  std::vector<int64_t> extent;  // One per data-parallel root axis.
};

struct StageLoops {
  // Extent of every iteration variable (root, intermediate and leaf), by node.
  std::map<const te::IterVarNode*, int64_t> extent;
  // Value of every root axis (data-parallel and reduce) as an offset from its domain's min,
  // in terms of leaf loop variables.
  ir::VarMap root_offset;
  // Conditions the body must satisfy (offset < extent of split parents that do not divide).
  std::vector<ir::Expr> guards;
};

// Computes the loop structure of `stage` over `dom`. InvalidArgument: a reduce axis whose
// extent is not a positive constant after binding.
absl::StatusOr<StageLoops> MakeStageLoops(const schedule::Stage& stage, const RootDomain& dom,
                                          const ir::VarMap& bindings);

// Substitutes root axis variables of `stage` by min + offset, giving expressions in terms of
// leaf loop variables. Reduce axes start at their domain min.
ir::VarMap RootValues(const schedule::Stage& stage, const RootDomain& dom, const StageLoops& loops,
                      const ir::VarMap& bindings);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_STAGE_LOOPS_H_
