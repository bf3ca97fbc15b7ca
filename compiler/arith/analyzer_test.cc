#include "compiler/arith/analyzer.h"

#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_printer.h"
#include "gtest/gtest.h"

namespace tunefarm::arith {
namespace {

using ir::Expr;
using ir::Var;

TEST(Analyzer, AffineSum_Canonicalized) {
  Var i("i"), j("j");
  Analyzer an;
  Expr e = (i * 4 + j) * 8 - i * 32 + 3 - 1;
  EXPECT_EQ(ir::ToString(an.Simplify(e)), "((j * 8) + 2)");
}

TEST(Analyzer, SplitIndex_FloorDivFolds) {
  Var o("o"), in("in");
  Analyzer an;
  an.Bind(in.get(), 0, 8);
  EXPECT_EQ(ir::ToString(an.Simplify(ir::floordiv(o * 8 + in, 8))), "o");
  EXPECT_EQ(ir::ToString(an.Simplify(ir::floormod(o * 8 + in, 8))), "in");
}

TEST(Analyzer, Comparison_ProvedByBounds) {
  Var i("i");
  Analyzer an;
  an.Bind(i.get(), 0, 16);
  EXPECT_TRUE(an.CanProve(i < 16));
  EXPECT_FALSE(an.CanProve(i < 15));
  EXPECT_TRUE(an.CanProve(i * 2 + 1 <= 31));
}

TEST(Analyzer, ConstBound_OfFloorMod) {
  Var x("x");
  Analyzer an;
  auto b = an.ConstBound(ir::floormod(x, 7));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->min, 0);
  EXPECT_EQ(b->max, 6);
}

}  // namespace
}  // namespace tunefarm::arith
