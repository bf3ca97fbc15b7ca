// Arithmetic on Expr handles with light constant folding and type matching, so schedules and
// operator definitions read like math: `A(i, k) * B(k, j)`, `floordiv(x, 4)`, `i < n`.
//
// Type matching: an int constant meeting a float operand becomes a float constant; a scalar
// meeting a vector is broadcast; int32 meeting int64 widens. Anything else must already match.
#ifndef TUNEFARM_COMPILER_IR_IR_OPERATORS_H_
#define TUNEFARM_COMPILER_IR_IR_OPERATORS_H_

#include <string>

#include "compiler/ir/ir.h"

namespace tunefarm::ir {

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // Truncating for integers.
Expr operator%(Expr a, Expr b);
Expr operator-(Expr a);
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr eq(Expr a, Expr b);
Expr ne(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);
Expr select(Expr cond, Expr t, Expr f);
Expr cast(DataType t, Expr v);
// Math intrinsics on floats.
Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr tanh(Expr x);
Expr fabs(Expr x);
Expr sigmoid(Expr x);
Expr pow(Expr x, Expr y);
// Marks a condition as likely true; the loop partitioner splits loops on it.
Expr likely(Expr cond);

// Brings a and b to one type per the rules above.
void MatchTypes(Expr* a, Expr* b);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_OPERATORS_H_
