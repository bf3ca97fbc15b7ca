// Checks a loop nest for schedules that cannot run correctly on a CPU: parallel loops nested
// in parallel loops, and loops bound to GPU thread indices.
#ifndef TUNEFARM_COMPILER_LOWER_VALIDATE_LOOPS_H_
#define TUNEFARM_COMPILER_LOWER_VALIDATE_LOOPS_H_

#include "absl/status/status.h"
#include "compiler/ir/ir.h"

namespace tunefarm::lower {

// FailedPrecondition: a parallel loop inside another parallel loop, or an allocation of
// global scope inside a parallel loop (its storage would be shared between threads).
absl::Status ValidateLoops(const ir::Stmt& s);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_VALIDATE_LOOPS_H_
