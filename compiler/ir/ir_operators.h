// Arithmetic on Expr handles with light constant folding and type matching, so schedules and
// operator definitions read like math: `A(i, k) * B(k, j)`, `floordiv(x, 4)`, `i < n`.
//
// Type matching (MatchTypes): a scalar meeting a vector is broadcast; a scalar constant takes
// the other operand's type (the left one's first), except a float constant with a fraction
// meeting an int operand, which is never truncated: the int operand is cast to float instead;
// otherwise an int operand meeting a float one is cast to the float type, and the narrower
// operand is cast to the wider (on equal widths, the right one to the left's type).
#ifndef TUNEFARM_COMPILER_IR_IR_OPERATORS_H_
#define TUNEFARM_COMPILER_IR_IR_OPERATORS_H_

#include <string>

#include "compiler/ir/ir.h"

namespace tunefarm::ir {

// Binary arithmetic on type-matched operands. Two integer constants fold (except a division
// or remainder by 0, left to run time); two float constants fold for +, - and *; integer
// identities (x + 0, x - 0, x * 1, x * 0, x / 1, x % 1) simplify, keeping index math small.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // Truncating for integers.
Expr operator%(Expr a, Expr b);  // Truncating remainder (sign of a) for integers.
// Negation, built as 0 - a.
Expr operator-(Expr a);
// Division rounding toward negative infinity, and its remainder (which has the sign of b).
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
// The smaller and the larger operand, folding like the arithmetic above.
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
// Comparisons: bool results with the operands' lanes; integer constants fold to true/false.
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
// a == b and a != b, the same way.
Expr eq(Expr a, Expr b);
Expr ne(Expr a, Expr b);
// Logic on bools. A constant operand decides at once (`true && x` is x, `false && x` false);
// operands are not type-matched.
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
// Logical not; a constant folds to a bool constant.
Expr operator!(Expr a);
// cond ? t : f, with t and f type-matched; a constant condition returns its side.
Expr select(Expr cond, Expr t, Expr f);
// `v` converted to `t`: `v` itself when already of type t; scalar constants fold (an int
// constant to any type, a float constant to float types); otherwise a Cast node.
Expr cast(DataType t, Expr v);
// Math intrinsics on floats (Call nodes of the argument's type; the type is not checked).
Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr tanh(Expr x);
Expr fabs(Expr x);
Expr sigmoid(Expr x);
Expr pow(Expr x, Expr y);  // x and y are type-matched first.
// 1 / x for a float x, within 1 ulp rather than correctly rounded: a CPU with AVX-512 computes
// it from the hardware estimate and one Newton step instead of a division (inf, 0 and NaN
// kept; a denormal x there gives inf).
Expr recip(Expr x);
// The error function, built from the operations above (a rational approximation with absolute
// error below 1.5e-7), so it vectorizes on every target; x must be a float.
Expr erf(Expr x);
// Marks a condition as likely true; the loop partitioner splits loops on it. A constant is
// returned as it is (nothing to split on).
Expr likely(Expr cond);

// Brings a and b to one type per the rules above, rewriting them in place. Both must be
// defined (checked). Two vectors of different widths are not reconciled: do not mix them.
void MatchTypes(Expr* a, Expr* b);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_OPERATORS_H_
