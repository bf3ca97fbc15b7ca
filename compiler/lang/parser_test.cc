#include "compiler/lang/parser.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/lang/printer.h"
#include "gtest/gtest.h"

namespace tunefarm::lang {
namespace {

std::string Canonical(const std::string& text) {
  absl::StatusOr<Program> p = ParseProgram(text);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? CanonicalText(*p) : "";
}

TEST(ParseProgram, DenseBiasRelu_StatementsAndCanonicalText) {
  const std::string text =
      "A = input(float32, [M, K]); W = input(float32, [N, K]); b = input(float32, [N])\n"
      "# the dense layer\n"
      "C[i, j] = sum(k: A[i, k] * W[j, k])\n"
      "Y[i, j] = max(C[i, j] + b[j], 0.0)   # ReLU\n";
  absl::StatusOr<Program> p = ParseProgram(text);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->statements.size(), 5u);
  EXPECT_EQ(p->statements[0].kind, Statement::Kind::kInput);
  EXPECT_EQ(p->statements[0].dtype, "float32");
  EXPECT_EQ(p->statements[3].kind, Statement::Kind::kDefine);
  EXPECT_EQ(p->statements[3].body->kind, Node::Kind::kReduce);
  EXPECT_EQ(p->statements[3].body->axes[0].name, "k");
  EXPECT_EQ(p->statements[4].body->kind, Node::Kind::kCall);  // max of two values
  EXPECT_EQ(p->statements[4].pos.line, 4);
  EXPECT_EQ(CanonicalText(*p),
            "A = input(float32, [M, K])\nW = input(float32, [N, K])\nb = input(float32, [N])\n"
            "C[i, j] = sum(k: A[i, k] * W[j, k])\nY[i, j] = max(C[i, j] + b[j], 0.0)\n");
}

TEST(ParseProgram, LayoutCommentsParenthesesAndLiteralSpelling_SameCanonicalText) {
  const std::string a = "X = input(float32, [N])\nY[i] = (X[i] * 2.50) + (1e0 - X[i])\n";
  const std::string b = "X=input(float32,[N]) # x\nY[ i ]=X[i]*2.5+(1.0-X[i]);\n";
  EXPECT_EQ(Canonical(a), Canonical(b));
  EXPECT_EQ(Canonical(a), "X = input(float32, [N])\nY[i] = X[i] * 2.5 + (1.0 - X[i])\n");
}

TEST(ParseProgram, WeightDeclaration_KeptInCanonicalText) {
  const std::string text = "W=weight(float32,[N])\nX = input(float32, [N])\nY[i] = X[i] * W[i]\n";
  absl::StatusOr<Program> p = ParseProgram(text);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->statements[0].weight);
  EXPECT_FALSE(p->statements[1].weight);
  EXPECT_EQ(Canonical(text),
            "W = weight(float32, [N])\nX = input(float32, [N])\nY[i] = X[i] * W[i]\n");
  // A weight is a different workload from the same tensor as a plain input.
  EXPECT_NE(Canonical(text), Canonical("W = input(float32, [N])\nX = input(float32, [N])\n"
                                       "Y[i] = X[i] * W[i]\n"));
}

TEST(ParseProgram, ConstantTable_ShapeValuesAndCanonicalText) {
  const std::string text =
      "T=constant(float32,[[4, 0,-5],[0.5,  -1e0, 2]])\nX = input(float32, [N])\n"
      "Y[i] = X[i] * T[1, 2]\n";
  absl::StatusOr<Program> p = ParseProgram(text);
  ASSERT_TRUE(p.ok()) << p.status();
  const Statement& t = p->statements[0];
  EXPECT_EQ(t.kind, Statement::Kind::kConstant);
  EXPECT_EQ(t.table_shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(t.table_values.size(), 6u);
  EXPECT_EQ(t.table_values[2]->int_value, -5);
  EXPECT_EQ(t.table_values[4]->float_value, -1.0);
  EXPECT_EQ(Canonical(text),
            "T = constant(float32, [[4, 0, -5], [0.5, -1.0, 2]])\nX = input(float32, [N])\n"
            "Y[i] = X[i] * T[1, 2]\n");
  // The values are part of the workload.
  EXPECT_NE(Canonical(text), Canonical("T=constant(float32,[[4, 0,-5],[0.5,  -1e0, 3]])\n"
                                       "X = input(float32, [N])\nY[i] = X[i] * T[1, 2]\n"));
  const std::pair<std::string, const char*> bad[] = {
      {"T = constant(float32, [[1, 2], [3]])\n",
       "line 1, column 32: a constant's lists must be "
       "rectangular: this one has extents [1], the "
       "first had [2]"},
      {"T = constant(float32, [1, [2]])\n", "line 1, column 27: expected a number"},
      {"T = constant(float32, [[1, 2], 3])\n", "line 1, column 32: expected '['"},
      {"T = constant(float32, [])\n", "line 1, column 24: expected a number"},
      {"T = constant(float32, [1, x])\n", "line 1, column 27: expected a number"},
      {"T = constant(float32, [[[[[[[[[1]]]]]]]]])\n", "at most 8 dimensions"},
      {"T = constant(float32, [" + std::string(4097 * 3, ' ') + "])\n", "expected a number"},
  };
  for (const auto& [program, want] : bad) {
    absl::StatusOr<Program> q = ParseProgram(program);
    ASSERT_FALSE(q.ok()) << program;
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(q.status().message(), want))
        << program << " -> " << q.status().message();
  }
  std::string many = "T = constant(int32, [0";
  for (int i = 1; i <= kMaxTableValues; ++i) many += ", 1";
  absl::StatusOr<Program> q = ParseProgram(many + "])\n");
  ASSERT_FALSE(q.ok());
  EXPECT_TRUE(absl::StrContains(q.status().message(), "at most 4096 values")) << q.status();
}

TEST(ParseProgram, Precedence_ParenthesesOnlyWhereNeeded) {
  const std::string text =
      "X = input(float32, [N])\n"
      "Y[i < N - 2] = select(i >= 1 && (i < 3 || !(i == 5)), -(X[i] - X[i + 1]) / (2 * 3), "
      "- 1.5)\n"
      "Z[i, r < 3] = X[i] - (X[i] - X[i]) - -2\n";
  const std::string once = Canonical(text);
  EXPECT_EQ(once,
            "X = input(float32, [N])\n"
            "Y[i < N - 2] = select(i >= 1 && (i < 3 || !(i == 5)), -(X[i] - X[i + 1]) / (2 * 3), "
            "-1.5)\n"
            "Z[i, r < 3] = X[i] - (X[i] - X[i]) - -2\n");
  EXPECT_EQ(Canonical(once), once);  // The printed form reads back as itself.
}

TEST(ParseProgram, ReductionsAndTwoArgumentMax_Distinguished) {
  absl::StatusOr<Program> p = ParseProgram(
      "X = input(float32, [N, H, W])\n"
      "P[n, h < 4, w < 4] = max(r < 3, s < 3: X[n, h * 2 + r, w * 2 + s])\n"
      "Q[n, h, w] = max(P[n, h, w], min(P[n, h, w], 1.0))\n");
  ASSERT_TRUE(p.ok()) << p.status();
  const Node& pool = *p->statements[1].body;
  EXPECT_EQ(pool.kind, Node::Kind::kReduce);
  ASSERT_EQ(pool.axes.size(), 2u);
  EXPECT_EQ(pool.axes[1].name, "s");
  ASSERT_NE(pool.axes[1].extent, nullptr);
  EXPECT_EQ(p->statements[2].body->kind, Node::Kind::kCall);
}

TEST(ParseProgram, SyntaxErrors_InvalidArgumentWithLineAndColumn) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "line 1, column 1: the program is empty"},
      {"A = input(float32, [N]\n", "expected ')'"},
      {"A = zeros(float32, [N])\n", "declares an input"},
      {"A = input(float32, [N])\nB[i] = A[i] +\n", "line 2, column 14: expected a value"},
      {"A = input(float32, [N])\nB[i] = A[i] A[i]\n", "line 2, column 13: expected the end"},
      {"A = input(float32, [N])\nB[i] = 1 < A[i] < 3\n", "comparisons do not chain"},
      {"A = input(float32, [N])\nB[2] = A[0]\n", "expected an index variable name"},
      {"A = input(float32, [N])\nB[i] = sum(: A[i])\n", "expected an index variable name"},
      {"A = input(float32, [N])\nB[i] = A[i] ? 1 : 2\n", "expected the end of the statement"},
      {"A = input(float32, [N])\nB[i] = 1e999\n", "out of range"},
      {"3 = input(float32, [N])\n", "expected a statement"},
  };
  for (const auto& [text, want] : cases) {
    absl::StatusOr<Program> p = ParseProgram(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_TRUE(absl::StrContains(p.status().message(), want))
        << text << " -> " << p.status().message();
  }
}

TEST(ParseProgram, DeepNesting_RejectedBeforeTheStackRunsOut) {
  std::string unary = "A = input(float32, [N])\nB[i] = ";
  for (int i = 0; i < 100000; ++i) unary += "-";
  unary += "A[i]\n";
  EXPECT_TRUE(absl::StrContains(ParseProgram(unary).status().message(), "nested deeper"));

  std::string chain = "A = input(float32, [N])\nB[i] = A[i]";
  for (int i = 0; i < 100000; ++i) chain += " + A[i]";
  EXPECT_TRUE(absl::StrContains(ParseProgram(chain + "\n").status().message(), "nested deeper"));

  std::string mixed = "A = input(float32, [N])\nB[i] = ";
  for (int i = 0; i < 60; ++i) mixed += "-(-(-(-(";
  EXPECT_FALSE(ParseProgram(mixed).ok());
}

}  // namespace
}  // namespace tunefarm::lang
