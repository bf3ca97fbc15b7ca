// Vectorization: a loop marked vectorized with constant extent L becomes vector operations of
// L lanes (Ramp indices, Broadcast scalars, vector loads and stores), which LLVM maps to SIMD
// registers. A store of a select whose condition is the same in every lane becomes a branch
// around vector stores. A store whose index does not depend on the loop is vectorized only as a
// reduction's update `B[i] = B[i] op f(k)` (op +, max, min; the loop's only statement), with
// its lanes combined by one horizontal `vector_reduce_<op>` (what Stage::VectorizeReduction
// asks for; a float sum is then reassociated). A loop body that cannot be expressed that way
// (any other store that every lane would make to one element, a branch on the loop variable,
// a load under a lane-dependent condition, an allocation) stays a scalar loop instead; it is
// never miscompiled.
#ifndef TUNEFARM_COMPILER_LOWER_VECTORIZE_LOOPS_H_
#define TUNEFARM_COMPILER_LOWER_VECTORIZE_LOOPS_H_

#include "compiler/ir/ir.h"

namespace tunefarm::lower {

// Most lanes a vectorized loop may have; wider loops stay scalar.
inline constexpr int64_t kMaxVectorLanes = 128;

ir::Stmt VectorizeLoops(ir::Stmt s);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_VECTORIZE_LOOPS_H_
