#include "compiler/lang/elaborate.h"

#include <string>

#include "absl/strings/match.h"
#include "compiler/ir/ir.h"
#include "compiler/lang/parser.h"
#include "gtest/gtest.h"

namespace tunefarm::lang {
namespace {

absl::StatusOr<ElaboratedProgram> Build(const std::string& text, const ShapeBindings& shapes) {
  absl::StatusOr<Program> p = ParseProgram(text);
  if (!p.ok()) return p.status();
  return Elaborate(*p, shapes);
}

#define EXPECT_OK(s) EXPECT_TRUE((s).ok()) << (s)

int64_t Dim(const te::Tensor& t, int d) { return *ir::AsConstInt(t.shape()[d]); }

TEST(Elaborate, DenseBiasRelu_TensorsShapesTypesAndFlops) {
  absl::StatusOr<ElaboratedProgram> p = Build(
      "A = input(float32, [M, K]); W = input(float32, [N, K]); b = input(float32, [N])\n"
      "C[i, j] = sum(k: A[i, k] * W[j, k])\n"
      "Y[i, j] = max(C[i, j] + b[j], 0.0)\n",
      {{"M", 4}, {"N", 6}, {"K", 8}});
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->inputs.size(), 3u);
  ASSERT_EQ(p->stages.size(), 2u);
  EXPECT_EQ(p->output().name(), "Y");
  EXPECT_EQ(Dim(p->output(), 0), 4);
  EXPECT_EQ(Dim(p->output(), 1), 6);
  EXPECT_EQ(p->output().dtype(), ir::DataType::Float(32));
  ASSERT_NE(p->stages[0].compute(), nullptr);
  EXPECT_EQ(p->stages[0].compute()->reduce_axis.size(), 1u);
  EXPECT_EQ(p->stages[0].compute()->axis[0]->name(), "i");
  // 2 per multiply-accumulate, plus the bias add and the max per output element.
  EXPECT_DOUBLE_EQ(p->flop, 2.0 * 4 * 6 * 8 + 2.0 * 4 * 6);
  EXPECT_EQ(p->args().size(), 4u);
}

TEST(Elaborate, Weights_AreInputsInDeclarationOrder) {
  absl::StatusOr<ElaboratedProgram> p = Build(
      "A = input(float32, [M, K]); W = weight(float32, [N, K]); b = weight(float32, [N])\n"
      "Y[i, j] = sum(k: A[i, k] * W[j, k]) + b[j]\n",
      {{"M", 4}, {"N", 6}, {"K", 8}});
  ASSERT_FALSE(p.ok());  // A reduction is a stage's whole right-hand side.
  p = Build(
      "A = input(float32, [M, K]); W = weight(float32, [N, K]); b = weight(float32, [N])\n"
      "C[i, j] = sum(k: A[i, k] * W[j, k])\nY[i, j] = C[i, j] + b[j]\n",
      {{"M", 4}, {"N", 6}, {"K", 8}});
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->inputs.size(), 3u);
  ASSERT_EQ(p->weights.size(), 2u);
  EXPECT_EQ(p->weights[0], p->inputs[1]);
  EXPECT_EQ(p->weights[1], p->inputs[2]);
}

TEST(Elaborate, ShapeVariables_InOrderOfFirstAppearance) {
  absl::StatusOr<Program> p = ParseProgram(
      "X = input(float32, [N, C, H, W])\n"
      "P[n, c, h < H + 2 * PAD, w < W + 2 * PAD] = "
      "select(h >= PAD && h < H + PAD && w >= PAD && w < W + PAD, X[n, c, h - PAD, w - PAD], "
      "0.0)\n");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(ShapeVariables(*p), (std::vector<std::string>{"N", "C", "H", "W", "PAD"}));
  absl::StatusOr<ElaboratedProgram> e =
      Elaborate(*p, {{"N", 1}, {"C", 3}, {"H", 5}, {"W", 7}, {"PAD", 1}});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(Dim(e->output(), 2), 7);
  EXPECT_EQ(Dim(e->output(), 3), 9);
}

TEST(Elaborate, GuardedAndStridedIndices_ProvenInBounds) {
  const ShapeBindings shapes = {{"H", 9}, {"W", 9}};
  // Pooling 3x3 stride 2: (9 - 3) / 2 + 1 = 4 outputs, reading rows up to 2 * 3 + 2 = 8.
  EXPECT_OK(Build("X = input(float32, [H, W])\n"
                  "Y[h < (H - 3) / 2 + 1, w < (W - 3) / 2 + 1] = "
                  "max(r < 3, s < 3: X[h * 2 + r, w * 2 + s])\n",
                  shapes)
                .status());
  // A stencil guarded on each side, and a guard on a whole index expression.
  EXPECT_OK(Build("X = input(float32, [H, W])\n"
                  "Y[i, j] = select(i > 0 && i < H - 1 && j > 0 && j < W - 1, "
                  "X[i - 1, j] + X[i + 1, j] + X[i, j - 1] + X[i, j + 1] - 4 * X[i, j], X[i, j])\n",
                  shapes)
                .status());
  EXPECT_OK(Build("X = input(float32, [H])\n"
                  "Y[h < 5, r < 3] = select(h * 2 + r - 1 >= 0 && h * 2 + r - 1 < H, "
                  "X[h * 2 + r - 1], 0.0)\n",
                  {{"H", 9}})
                .status());
  // The false side of a single comparison is narrowed by its negation.
  EXPECT_OK(Build("X = input(float32, [H])\nY[i < H + 1] = select(i >= H, 0.0, X[i])\n", {{"H", 9}})
                .status());
}

TEST(Elaborate, MixedTypes_CastsAndLiterals) {
  absl::StatusOr<ElaboratedProgram> p = Build(
      "A = input(int8, [M, K]); B = input(int8, [N, K])\n"
      "C[i, j] = sum(k: int32(A[i, k]) * int32(B[j, k]))\n"
      "D[i, j] = float32(C[i, j]) * 0.5 + 1\n",
      {{"M", 2}, {"N", 3}, {"K", 64}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->stages[0].dtype(), ir::DataType::Int(32));
  EXPECT_EQ(p->output().dtype(), ir::DataType::Float(32));
  absl::StatusOr<ElaboratedProgram> f64 =
      Build("X = input(float64, [N])\nY[i] = gelu(X[i]) + exp(X[i] / 3) - 1e-3\n", {{"N", 5}});
  ASSERT_TRUE(f64.ok()) << f64.status();
  EXPECT_EQ(f64->output().dtype(), ir::DataType::Float(64));
}

// A padding of 0 is a binding like any other: the padded extent equals the input's.
TEST(Elaborate, ZeroBinding_PaddingOfZero) {
  absl::StatusOr<ElaboratedProgram> p = Build(
      "X = input(float32, [H])\nP[h < H + 2 * Pd] = select(h >= Pd && h < H + Pd, X[h - Pd], "
      "0.0)\nY[y < H + 2 * Pd - 2] = sum(r < 3: P[y + r])\n",
      {{"H", 9}, {"Pd", 0}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->output().shape().size(), 1u);
}

// A quotient inside an input's dimension rounds down (a residual shaped like a stride-2
// convolution's output: (8 - 1) / 2 + 1 = 4 rows); only a dimension that is a quotient must
// divide exactly (MustFail below).
TEST(Elaborate, QuotientInsideADimension_RoundsDown) {
  absl::StatusOr<ElaboratedProgram> p = Build(
      "X = input(float32, [H]); R1 = input(float32, [(H - R) / S + 1])\nY[y < (H - R) / S + "
      "1] = X[y * S] + R1[y]\n",
      {{"H", 8}, {"R", 1}, {"S", 2}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->inputs[1].shape().size(), 1u);
}

// The language's must-fail cases: each one a specific message at a specific place.
TEST(Elaborate, ConstantTable_AStageOfItsValues) {
  absl::StatusOr<ElaboratedProgram> p = Build(
      "T = constant(float32, [[0, 0, 0], [0, 2.5, 0], [0, 0, -1]])\n"
      "X = input(float32, [N])\nY[i, j < 3, k < 3] = X[i] * T[j, k]\n",
      {{"N", 4}});
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->stages.size(), 2u);
  EXPECT_TRUE(p->inputs.size() == 1u && p->inputs[0].name() == "X");
  const te::Tensor& t = p->stages[0];
  EXPECT_EQ(t.name(), "T");
  EXPECT_EQ(Dim(t, 0), 3);
  EXPECT_EQ(Dim(t, 1), 3);
  EXPECT_EQ(t.dtype(), ir::DataType::Float(32));
  EXPECT_DOUBLE_EQ(p->flop, 4.0 * 9);  // The table costs nothing.

  const ShapeBindings n = {{"N", 4}};
  const std::pair<std::string, const char*> bad[] = {
      {"T = constant(int8, [1, 200])\nX = input(int8, [N])\nY[i] = X[i] * T[0]\n",
       "line 1, column 24: 200 does not fit int8 (-128 to 127)"},
      {"T = constant(uint8, [1, -1])\nX = input(uint8, [N])\nY[i] = X[i] * T[0]\n",
       "line 1, column 25: -1 does not fit uint8 (0 to 255)"},
      {"T = constant(int32, [1, 0.5])\nX = input(int32, [N])\nY[i] = X[i] * T[0]\n",
       "line 1, column 25: '0.5' is not an integer; T holds int32"},
      {"T = constant(flt, [1])\nX = input(float32, [N])\nY[i] = X[i]\n",
       "line 1, column 14: unknown element type 'flt'"},
      {"T = constant(float32, [1])\nX = input(float32, [N])\nY[i] = X[i]\n",
       "line 1, column 1: constant 'T' is never read"},
      {"T = constant(float32, [1, 2])\nX = input(float32, [N])\nY[i] = X[i] * T[i + 1]\n",
       "line 3, column 17: index out of bounds: 'i + 1' ranges over [1, 4] but dimension 0 of T "
       "has extent 2"},
      {"N = constant(float32, [1])\nX = input(float32, [N])\nY[i] = X[i] * N[0]\n",
       "'N' is a shape variable"},
  };
  for (const auto& [text, want] : bad) {
    absl::StatusOr<ElaboratedProgram> q = Build(text, n);
    ASSERT_FALSE(q.ok()) << text;
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(q.status().message(), want))
        << text << " -> " << q.status().message();
  }
}

TEST(Elaborate, MustFail_SpecificMessages) {
  const ShapeBindings mnk = {{"M", 4}, {"N", 6}, {"K", 8}};
  const std::string abk = "A = input(float32, [M, K]); B = input(float32, [N, K])\n";
  struct Case {
    std::string text;
    ShapeBindings shapes;
    std::string want;
  };
  const Case cases[] = {
      {abk + "C[i, j] = sum(k: A[i, k] * Q[j, k])\n", mnk, "line 2, column 28: unknown tensor 'Q'"},
      {abk + "C[i, j] = sum(k: A[i, k, 0] * B[j, k])\n", mnk,
       "line 2, column 18: tensor 'A' has 2 dimensions but is indexed with 3"},
      {abk + "C[i, j] = A[i, j + 5] + B[j, 0]\n", mnk,
       "line 2, column 16: index out of bounds: 'j + 5' ranges over [5, 10] but dimension 1 of A "
       "has extent 8"},
      {abk + "C[i, j] = sum(k: A[i, k] * B[j, k])\n",
       {{"M", 4}, {"N", 6}},
       "line 1, column 24: shape variable 'K' is not bound"},
      {abk + "C[i, j] = A[i, k] * B[j, k] + sum(k: A[i, k])\n", mnk,
       "line 2, column 16: reduction variable 'k' is used outside its reduction"},
      {"A = input(float32, [M, K]); B = input(int8, [N, K])\nC[i, j] = sum(k: A[i, k] * "
       "B[j, k])\n",
       mnk, "line 2, column 18: dtype mismatch in 'A[i, k] * B[j, k]': float32 '*' int8"},
      {"A = input(flaot32, [M])\nY[i] = A[i]\n",
       {{"M", 4}},
       "line 1, column 11: unknown element type 'flaot32'"},
      {abk + "A[i, k] = B[i, k]\n", mnk, "line 2, column 1: 'A' is already defined"},
      {abk + "C[i, j] = D[i, j]\nD[i, j] = A[i, j]\n", mnk,
       "line 2, column 11: tensor 'D' is used before its definition on line 3"},
      {abk + "C[i, j] = C[i, j] + A[i, j]\n", mnk, "'C' reads itself"},
      {abk + "C[i, j] = A[i, 0] + B[0, 0]\n", mnk,
       "line 2, column 6: cannot infer the extent of 'j'"},
      {abk + "C[i, j] = A[i, j] + B[i, j]\n", mnk,
       "line 2, column 23: 'i' indexes A's dimension 0 (extent 4) and here B's dimension 0 "
       "(extent 6)"},
      {"A = input(int32, [M])\nY[i] = A[i] * 0.5\n",
       {{"M", 4}},
       "dtype mismatch in 'A[i] * 0.5': a float literal meets int32"},
      {"A = input(float32, [M])\nY[i] = softplus(A[i])\n",
       {{"M", 4}},
       "line 2, column 8: unknown function 'softplus'"},
      {"A = input(float32, [M])\nY[i] = select(A[i] > 0, A[i])\n",
       {{"M", 4}},
       "select(...) takes 3 arguments, got 2"},
      {abk + "C[i] = sum(k: A[i, k]) / 8\n", mnk,
       "line 2, column 8: a reduction must be the whole right-hand side"},
      {"A = input(float32, [M]); I = input(int32, [M])\nY[i] = A[I[i]]\n",
       {{"M", 4}},
       "line 2, column 10: index 'I[i]' of A reads tensor data; gathers are not supported"},
      {abk + "C[i, j] = A[i, j]\nD[i, j] = B[i, j]\n",
       {{"M", 4}, {"N", 4}, {"K", 4}},
       "line 2, column 1: 'C' is defined but never read"},
      {abk + "C[i, j] = A[i, j]\n", mnk, "line 1, column 29: input 'B' is never read"},
      {"A = input(float32, [M])\nY[i] = A[i]\n",
       {{"M", 4}, {"Q", 2}},
       "shape binding 'Q' names no shape variable of the program (it has M)"},
      {"A = input(int32, [M])\nY[i] = exp(A[i])\n",
       {{"M", 4}},
       "exp needs a float argument, got int32; write exp(float32(A[i]))"},
      {"A = input(float32, [M])\nY[i < M - 10] = A[i]\n",
       {{"M", 4}},
       "line 2, column 7: the extent of i 'M - 10' is -6"},
      {"A = input(float32, [M])\nY[i] = A[i] + A[float32(i)]\n", {{"M", 4}}, "must be an integer"},
      // A blocked layout's dimension must divide exactly (K = 6: 6 / 4 groups of four).
      {"A = input(uint8, [M, K]); W = weight(int8, [K / 4, 4])\nY[i] = sum(k < K / 4: "
       "int32(A[i, 4 * k]) * int32(W[k, 0]))\n",
       {{"M", 2}, {"K", 6}},
       "line 1, column 45: dimension 0 of W: 'K / 4' is 6 / 4, not a whole number; bind shapes "
       "that divide exactly (K a multiple of 4)"},
      {"A = input(float32, [M])\nY[i] = A[i] % 2.0\n", {{"M", 4}}, "'%' needs integers"},
      {"A = input(float32, [M])\nY[i] = A[i] > 0.0\n", {{"M", 4}}, "must be numbers, not bools"},
      {"A = input(float32, [M])\nY[i] = A[i] * scale\n", {{"M", 4}}, "unknown name 'scale'"},
      {"A = input(float32, [M, M])\nY[i, j < M] = A[i, j + i % 3]\n",
       {{"M", 4}},
       "index out of bounds: 'j + i % 3' ranges over [0, 5]"},
      {"A = input(float32, [M, 65536, 65536])\nY[i] = A[i, 0, 0]\n",
       {{"M", 4}},
       "would hold more than"},
      {"A = input(float32, [M])\nY[i, M] = A[i]\n", {{"M", 4}}, "'M' is a shape variable"},
      {"A = input(float32, [M])\nY[i] = A[i]\n", {{"M", -3}}, "shape binding M=-3 must be in [0, "},
      {"A = input(float32, [M])\nY[i] = A[i]\n",
       {{"M", 0}},
       "line 1, column 21: dimension 0 of A 'M' is 0; extents must be in [1, "},
      {"A = input(float32, [M])\nY[i < M / S] = A[i * S]\n",
       {{"M", 4}, {"S", 0}},
       "line 2, column 7: 'M / S' divides by 0"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ElaboratedProgram> p = Build(c.text, c.shapes);
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_TRUE(absl::StrContains(p.status().message(), c.want))
        << c.text << "\n  got:  " << p.status().message() << "\n  want: " << c.want;
  }
}

}  // namespace
}  // namespace tunefarm::lang
