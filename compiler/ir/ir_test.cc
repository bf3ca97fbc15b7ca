#include "compiler/ir/ir.h"

#include <string>
#include <utility>

#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_util.h"
#include "gtest/gtest.h"

namespace tunefarm::ir {
namespace {

TEST(IrOperators, ConstantOperands_Fold) {
  Expr e = Expr(3) * 4 + 2;
  ASSERT_NE(AsConstInt(e), nullptr);
  EXPECT_EQ(*AsConstInt(e), 14);
  const Expr div = floordiv(-7, 2), mod = floormod(-7, 2);
  ASSERT_NE(AsConstInt(div), nullptr);
  ASSERT_NE(AsConstInt(mod), nullptr);
  EXPECT_EQ(*AsConstInt(div), -4);
  EXPECT_EQ(*AsConstInt(mod), 1);
}

TEST(IrOperators, IntConstantMeetsFloat_BecomesFloat) {
  Var x("x", DataType::Float(32));
  Expr e = x + 1;
  EXPECT_EQ(e.type(), DataType::Float(32));
}

// A fractional float constant meeting an integer is not truncated (0.5 * i used to fold to
// 0 * i = 0): the integer is promoted to float. An integral one still adopts the int type, so
// index arithmetic stays integer.
TEST(IrOperators, FractionalFloatConstantMeetsInt_IntPromoted) {
  Var i("i");
  const std::pair<Expr, const char*> cases[] = {
      {Expr(0.5f) * i, "0.5"}, {i * Expr(0.5f), "0.5"}, {i + Expr(1.25f), "1.25"}};
  for (const auto& [e, constant] : cases) {
    EXPECT_EQ(e.type(), DataType::Float(32)) << ToString(e);
    EXPECT_NE(ToString(e).find(constant), std::string::npos) << ToString(e);
  }
  EXPECT_EQ((i * Expr(2.0f)).type(), i.type());  // integral: stays integer arithmetic
}

TEST(IrEquality, RenamedLoopVariables_Equal) {
  Buffer a = MakeBuffer("A", DataType::Float(32), {16});
  Var i("i"), j("j");
  Stmt s1 = ForNode::Make(i, 0, 16, ForKind::kSerial, StoreNode::Make(a, Expr(1.0f), {i}));
  Stmt s2 = ForNode::Make(j, 0, 16, ForKind::kSerial, StoreNode::Make(a, Expr(1.0f), {j}));
  EXPECT_TRUE(StructuralEqual(s1, s2));
  EXPECT_EQ(StructuralHash(s1), StructuralHash(s2));
  Stmt s3 = ForNode::Make(j, 0, 8, ForKind::kSerial, StoreNode::Make(a, Expr(1.0f), {j}));
  EXPECT_FALSE(StructuralEqual(s1, s3));
}

TEST(IrEquality, DifferentFreeVariables_NotEqual) {
  Var x("x"), y("x");
  EXPECT_FALSE(StructuralEqual(x + 1, y + 1));
  EXPECT_TRUE(StructuralEqual(x + 1, x + 1));
}

TEST(IrMutator, NoChange_ReturnsSameNode) {
  Var x("x");
  Expr e = (x + 1) * 2;
  IRMutator m;
  EXPECT_TRUE(m.Mutate(e).same_as(e));
}

TEST(IrUtil, Substitute_ReplacesVar) {
  Var x("x");
  Expr e = Substitute(x * 2 + 1, {{x.get(), Expr(5)}});
  EXPECT_EQ(ToString(e), "((5 * 2) + 1)");
}

TEST(IrPrinter, Loop_PrintsReadably) {
  Buffer a = MakeBuffer("A", DataType::Float(32), {16});
  Var i("i");
  Stmt s = ForNode::Make(i, 0, 16, ForKind::kParallel, StoreNode::Make(a, Expr(1.0f), {i}));
  EXPECT_EQ(ToString(s), "parallel (i, 0, 16) {\n  A[i] = 1f\n}\n");
}

TEST(DataType, Parse_KnownAndUnknown) {
  EXPECT_EQ(*ParseDataType("float32x16"), DataType::Float(32, 16));
  EXPECT_EQ(ParseDataType("float7").status().code(), absl::StatusCode::kInvalidArgument);
  for (const char* bad : {"float32x4x2", "float32x", "float32x0", "int8x-1", "x4", ""}) {
    EXPECT_EQ(ParseDataType(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace tunefarm::ir
