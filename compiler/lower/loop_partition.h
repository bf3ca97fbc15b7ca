// Loop partitioning: a loop whose body is guarded by `likely(cond)`, where cond is linear in
// the loop variable, is split into a main part in which cond provably holds (the guard is
// removed) and a tail that keeps it. This keeps non-divisible splits from costing a branch in
// the hot loop.
//
// A loop with the pragma schedule::kPartitionSelectsPragma is also split on the conditions of the
// selects in its body that guard a load (a padding's bounds, select(w >= 3 && ..., X[w - 3],
// 0)), so that its main part loads without a condition and can run in vectors; the edges keep
// the select. A bound on floordiv(e, c) with c > 0 counts as the bound it puts on e (an image
// row's pixels and channels fused into one axis: floordiv(i, 3) >= 3 is i >= 9).
//
// Such a condition that reads a serial loop with the pragma and loops in its body (a filter's
// rows around the register tile) and otherwise only variables bound outside it (the output
// row) is checked once per iteration of that loop instead, around its body, where the body
// does nothing when the condition fails; the outer loops are not split on it, so a
// convolution's edge rows are not copies of the whole row of tiles.
#ifndef TUNEFARM_COMPILER_LOWER_LOOP_PARTITION_H_
#define TUNEFARM_COMPILER_LOWER_LOOP_PARTITION_H_

#include "compiler/ir/ir.h"

namespace tunefarm::lower {

ir::Stmt LoopPartition(ir::Stmt s);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_LOOP_PARTITION_H_
