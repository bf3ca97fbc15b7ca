// Structural equality and hashing of IR trees.
//
// Two trees are equal when they have the same shape, kinds, types, constants, buffers (by
// identity) and variables, where variables bound inside the trees (loop and let variables) are
// matched by position rather than identity: `for (i...) A[i]` equals `for (j...) A[j]`.
// StructuralHash agrees with StructuralEqual: equal trees hash equally.
#ifndef TUNEFARM_COMPILER_IR_IR_EQUALITY_H_
#define TUNEFARM_COMPILER_IR_IR_EQUALITY_H_

#include <cstdint>

#include "compiler/ir/ir.h"

namespace tunefarm::ir {

// True when `a` and `b` are equal in the sense above; two undefined handles are equal, an
// undefined and a defined one are not. Loop kinds, thread tags and pragmas must match too.
bool StructuralEqual(const Expr& a, const Expr& b);
bool StructuralEqual(const Stmt& a, const Stmt& b);
// A hash of the structure: free variables and buffers hash by name, bound variables by the
// order they are bound in, so renaming bound variables changes nothing. Coarser than equality
// (thread tags and pragmas are not hashed). Names go through absl::Hash, whose seed may change
// from one run to the next: never store the value.
uint64_t StructuralHash(const Expr& e);
uint64_t StructuralHash(const Stmt& s);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_EQUALITY_H_
