// Loop partitioning: a loop whose body is guarded by `likely(cond)`, where cond is linear in
// the loop variable, is split into a main part in which cond provably holds (the guard is
// removed) and a tail that keeps it. This keeps non-divisible splits from costing a branch in
// the hot loop.
#ifndef TUNEFARM_COMPILER_LOWER_LOOP_PARTITION_H_
#define TUNEFARM_COMPILER_LOWER_LOOP_PARTITION_H_

#include "compiler/ir/ir.h"

namespace tunefarm::lower {

ir::Stmt LoopPartition(ir::Stmt s);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_LOOP_PARTITION_H_
