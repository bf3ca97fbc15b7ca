// Unrolling: loops marked unrolled are replicated; with an auto-unroll step (from the
// options or an `auto_unroll_max_step` pragma on an enclosing loop), serial loops with
// constant extent whose fully unrolled body would have at most that many statements are
// replicated too.
#ifndef TUNEFARM_COMPILER_LOWER_UNROLL_LOOPS_H_
#define TUNEFARM_COMPILER_LOWER_UNROLL_LOOPS_H_

#include <cstdint>

#include "compiler/ir/ir.h"

namespace tunefarm::lower {

// Most iterations an explicitly unrolled loop may have; longer ones stay loops.
inline constexpr int64_t kMaxExplicitUnroll = 1024;

ir::Stmt UnrollLoops(ir::Stmt s, int64_t auto_unroll_max_step);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_UNROLL_LOOPS_H_
