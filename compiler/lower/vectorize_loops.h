// Vectorization: a loop marked vectorized with constant extent L becomes vector operations of
// L lanes (Ramp indices, Broadcast scalars, vector loads and stores), which LLVM maps to SIMD
// registers. A loop body that cannot be expressed that way (a store whose index does not
// depend on the loop, a branch on the loop variable, a conditional load, an allocation) stays
// a scalar loop instead; it is never miscompiled.
#ifndef TUNEFARM_COMPILER_LOWER_VECTORIZE_LOOPS_H_
#define TUNEFARM_COMPILER_LOWER_VECTORIZE_LOOPS_H_

#include "compiler/ir/ir.h"

namespace tunefarm::lower {

// Most lanes a vectorized loop may have; wider loops stay scalar.
inline constexpr int64_t kMaxVectorLanes = 128;

ir::Stmt VectorizeLoops(ir::Stmt s);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_VECTORIZE_LOOPS_H_
