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

bool StructuralEqual(const Expr& a, const Expr& b);
bool StructuralEqual(const Stmt& a, const Stmt& b);
uint64_t StructuralHash(const Expr& e);
uint64_t StructuralHash(const Stmt& s);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_EQUALITY_H_
