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

TEST(Analyzer, FusedIndex_DivAndModOfTheSameValueFoldBack) {
  Var o("o"), in("in"), h("h");
  Analyzer an;
  an.Bind(in.get(), 0, 16);
  // A row of pixels of 3 channels read as one run: 3·(i / 3) + i % 3 is i, with i = 16·o + in
  // (neither bound lets the halves fold alone), scaled and beside other terms.
  const Expr i = o * 16 + in;
  EXPECT_EQ(ir::ToString(an.Simplify(h * 672 + (ir::floordiv(i, 3) - 3) * 3 + ir::floormod(i, 3))),
            "((((h * 672) + (o * 16)) + in) - 9)");
  EXPECT_EQ(ir::ToString(an.Simplify(ir::floordiv(i, 3) * 6 + ir::floormod(i, 3) * 2)),
            "((o * 32) + (in * 2))");
  // Different divisors, or coefficients out of proportion, stay as they are.
  EXPECT_EQ(ir::ToString(an.Simplify(ir::floordiv(i, 3) * 3 + ir::floormod(i, 5))),
            "((floordiv(((o * 16) + in), 3) * 3) + floormod(((o * 16) + in), 5))");
  EXPECT_EQ(ir::ToString(an.Simplify(ir::floordiv(i, 3) * 2 + ir::floormod(i, 3))),
            "((floordiv(((o * 16) + in), 3) * 2) + floormod(((o * 16) + in), 3))");
}

// A chain is canonicalized step by step, as it nests: a term that cancels at one step is gone
// from the later ones (y + x, not x + y), and a div/mod pair folds at the step that completes it
// (the floordiv taken away after the pair has folded stays). A long chain of three variables
// ends as three terms.
TEST(Analyzer, NestedChain_EachStepCanonical) {
  Var x("x"), y("y"), o("o"), in("in");
  Analyzer an;
  an.Bind(in.get(), 0, 16);
  EXPECT_EQ(ir::ToString(an.Simplify((x - x) + y + x)), "(y + x)");
  const Expr i = o * 16 + in;
  EXPECT_EQ(ir::ToString(an.Simplify(ir::floordiv(i, 3) * 3 + x + ir::floormod(i, 3))),
            "((x + (o * 16)) + in)");
  EXPECT_EQ(ir::ToString(
                an.Simplify(ir::floordiv(i, 3) * 3 + ir::floormod(i, 3) - ir::floordiv(i, 3) * 3)),
            "(((o * 16) + in) - (floordiv(((o * 16) + in), 3) * 3))");
  Expr chain = Expr(5);
  const Var vars[3] = {x, y, o};
  for (int k = 1; k <= 300; ++k) chain = (chain + vars[k % 3] * k) - 1;
  // Σ k over k ≡ 1, 2, 0 (mod 3) in 1..300 (y, o, x): 14950, 15050, 15150.
  EXPECT_EQ(ir::ToString(an.Simplify(chain)),
            "((((y * 14950) + (o * 15050)) + (x * 15150)) - 295)");
  EXPECT_EQ(ir::ToString(an.Simplify(chain * 2 - chain - chain)), "0");
}

// A padding's tap whose select is decided (false: the tap reads the padding) multiplies a
// constant zero: the uint8 zero widened to int32 folds to a constant, and the term drops out
// of the accumulator's sum, in vectors of 16 too; so does a floating-point zero's term. A cast
// whose type cannot hold the constant stays a cast, and other constants are not dropped.
TEST(Analyzer, PaddingZeroTerm_DroppedFromTheSum) {
  Analyzer an;
  const ir::DataType i32x16 = ir::DataType::Int(32, 16);
  Var acc("acc", i32x16), w("w", i32x16);
  const Expr zero_u8 = ir::IntImmNode::Make(ir::DataType::UInt(8), 0);
  const Expr tap = ir::BroadcastNode::Make(ir::CastNode::Make(ir::DataType::Int(32), zero_u8), 16);
  EXPECT_EQ(ir::ToString(an.Simplify(acc + tap * w + tap * w)), "acc");
  Var facc("facc", ir::DataType::Float(32, 16)), fw("fw", ir::DataType::Float(32, 16));
  const Expr ftap = ir::BroadcastNode::Make(ir::FloatImmNode::Make(ir::DataType::Float(32), 0), 16);
  EXPECT_EQ(ir::ToString(an.Simplify(facc + fw * ftap)), "facc");
  const Expr big = ir::CastNode::Make(ir::DataType::UInt(8), Expr(300));
  const Expr kept = an.Simplify(big);
  EXPECT_NE(kept.as<ir::CastNode>(), nullptr) << ir::ToString(kept);
  const Expr one = ir::BroadcastNode::Make(ir::CastNode::Make(ir::DataType::Int(32), Expr(1)), 16);
  EXPECT_EQ(ir::ToString(an.Simplify(acc + one * w)), "(acc + w)");
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
