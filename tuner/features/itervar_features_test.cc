#include "tuner/features/itervar_features.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "compiler/ir/ir_operators.h"
#include "compiler/lower/lower.h"
#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

float Lg(double x) { return static_cast<float>(std::log2(1.0 + x)); }

Expr I(int64_t v) { return ir::IntImmNode::Make(DataType::Int(32), v); }
Expr Add(Expr a, Expr b) { return ir::BinaryNode::Make(ir::BinaryOp::kAdd, a, b); }
Expr Mul(Expr a, Expr b) { return ir::BinaryNode::Make(ir::BinaryOp::kMul, a, b); }

// for i in [0, 16): for j in [0, 32) (kind): C[i*32 + j] = A[i*64 + j*2] * B[j]
ir::Stmt HandNest(ir::ForKind inner_kind) {
  auto a = ir::MakeBuffer("A", DataType::Float(32), {I(16 * 64)});
  auto b = ir::MakeBuffer("B", DataType::Float(32), {I(64)});
  auto c = ir::MakeBuffer("C", DataType::Float(32), {I(16 * 32)});
  Var i("i"), j("j");
  Expr load_a = ir::LoadNode::Make(a, {Add(Mul(i, I(64)), Mul(j, I(2)))});
  Expr load_b = ir::LoadNode::Make(b, {j});
  ir::Stmt store = ir::StoreNode::Make(c, Mul(load_a, load_b), {Add(Mul(i, I(32)), j)});
  ir::Stmt inner = ir::ForNode::Make(j, I(0), I(32), inner_kind, store);
  return ir::ForNode::Make(i, I(0), I(16), ir::ForKind::kParallel, inner);
}

TEST(ExtractItervarFeatures, HandNest_FixedLengthAndLoopFeatures) {
  auto f = ExtractItervarFeatures(HandNest(ir::ForKind::kSerial));
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->size(), static_cast<size_t>(kItervarFeatureLength));
  EXPECT_FLOAT_EQ((*f)[0], Lg(16 * 32));  // Trip count.
  EXPECT_FLOAT_EQ((*f)[1], 2);            // Levels.
  EXPECT_FLOAT_EQ((*f)[3], Lg(1));        // One float multiply per iteration.
  EXPECT_FLOAT_EQ((*f)[9], 3);            // Buffers.
  const float* l0 = f->data() + LoopFeatureOffset(0);
  const float* l1 = f->data() + LoopFeatureOffset(1);
  EXPECT_FLOAT_EQ(l0[0], Lg(16));
  EXPECT_FLOAT_EQ(l0[2], 1);  // Parallel.
  EXPECT_FLOAT_EQ(l1[0], Lg(32));
  EXPECT_FLOAT_EQ(l1[1], 1);  // Serial.
  EXPECT_FLOAT_EQ(l0[7], 1);
  EXPECT_FLOAT_EQ(l1[7], 0);
  // Levels past the nest are zero.
  for (int k = 0; k < kLoopFeatures; ++k) EXPECT_EQ((*f)[LoopFeatureOffset(2) + k], 0.0f);
}

TEST(ExtractItervarFeatures, HandNest_StridesFootprintsReuse) {
  auto f = *ExtractItervarFeatures(HandNest(ir::ForKind::kSerial));
  // One access each: buffers sorted by name, A, B, C.
  auto stride = [&](int buf, int level) { return f[BufferLoopFeatureOffset(buf, level)]; };
  auto bytes = [&](int buf, int level) { return f[BufferLoopFeatureOffset(buf, level) + 1]; };
  auto reuse = [&](int buf, int level) { return f[BufferLoopFeatureOffset(buf, level) + 2]; };
  EXPECT_FLOAT_EQ(stride(0, 0), Lg(64));  // A[i*64 + j*2]
  EXPECT_FLOAT_EQ(stride(0, 1), Lg(2));
  EXPECT_FLOAT_EQ(stride(1, 0), Lg(0));  // B[j]
  EXPECT_FLOAT_EQ(stride(1, 1), Lg(1));
  EXPECT_FLOAT_EQ(stride(2, 0), Lg(32));  // C[i*32 + j]
  EXPECT_FLOAT_EQ(stride(2, 1), Lg(1));
  EXPECT_FLOAT_EQ(f[BufferFeatureOffset(2) + 1], 1.0f);  // C is written.
  EXPECT_FLOAT_EQ(f[BufferFeatureOffset(0) + 1], 0.0f);
  // B: 32 floats whatever i does, reused 16 times over the whole nest.
  EXPECT_FLOAT_EQ(bytes(1, 1), Lg(32 * 4));
  EXPECT_FLOAT_EQ(bytes(1, 0), Lg(32 * 4));
  EXPECT_FLOAT_EQ(reuse(1, 0), Lg(16));
  EXPECT_FLOAT_EQ(reuse(1, 1), Lg(1));
  // C: every element once.
  EXPECT_FLOAT_EQ(bytes(2, 0), Lg(16 * 32 * 4));
  EXPECT_FLOAT_EQ(reuse(2, 0), Lg(1));
}

TEST(ExtractItervarFeatures, SameNestTwice_Identical) {
  EXPECT_EQ(*ExtractItervarFeatures(HandNest(ir::ForKind::kSerial)),
            *ExtractItervarFeatures(HandNest(ir::ForKind::kSerial)));
}

TEST(ExtractItervarFeatures, BadInput_InvalidArgument) {
  EXPECT_EQ(ExtractItervarFeatures(ir::Stmt()).status().code(), absl::StatusCode::kInvalidArgument);
  Var i("i");
  ir::Stmt no_store =
      ir::ForNode::Make(i, I(0), I(4), ir::ForKind::kSerial, ir::EvaluateNode::Make(I(0)));
  EXPECT_EQ(ExtractItervarFeatures(no_store).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ConfigFeatures, Concatenates) {
  EXPECT_EQ(ConfigFeatures({1, 2}, {3}), (std::vector<float>{1, 2, 3}));
}

// A tiled GEMM (M=N=K=size) lowered by the compiler, vectorized and unrolled or not.
lower::LoweredFunc LowerGemm(int size, bool vectorize, bool unroll) {
  te::Tensor A = te::Placeholder({size, size}, DataType::Float(32), "A");
  te::Tensor B = te::Placeholder({size, size}, DataType::Float(32), "B");
  auto k = te::ReduceAxis(size, "k");
  te::Tensor C = te::Compute(
                     {size, size},
                     [&](const std::vector<Var>& i) {
                       return te::Sum(A(i[0], k->var) * B(k->var, i[1]), {k});
                     },
                     "C")
                     .value();
  auto sch = *schedule::Schedule::Create({C});
  te::Tensor CC = *sch->CacheWrite(C, "local");
  auto& c = (*sch)[C];
  auto t = *c.Tile(c.axis(0), c.axis(1), 8, 16);
  EXPECT_TRUE((*sch)[CC].ComputeAt(c, t[1]).ok());
  auto& cc = (*sch)[CC];
  auto ks = *cc.Split(cc.reduce_axis(0), 4);
  EXPECT_TRUE(cc.Reorder({ks.first, cc.axis(0), ks.second, cc.axis(1)}).ok());
  if (vectorize) {
    EXPECT_TRUE(cc.Vectorize(cc.axis(1)).ok());
    EXPECT_TRUE(c.Vectorize(t[3]).ok());
  }
  if (unroll) {
    EXPECT_TRUE(cc.Unroll(cc.axis(0)).ok());
  }
  EXPECT_TRUE(c.Parallel(t[0]).ok());
  auto f = lower::Lower(*sch, {A, B, C}, "gemm");
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

TEST(ExtractItervarFeatures, LoweredGemm_VectorizedDiffersFromScalar) {
  auto scalar = ExtractItervarFeatures(LowerGemm(128, false, false));
  auto vector = ExtractItervarFeatures(LowerGemm(128, true, false));
  auto unrolled = ExtractItervarFeatures(LowerGemm(128, true, true));
  ASSERT_TRUE(scalar.ok() && vector.ok() && unrolled.ok()) << scalar.status() << vector.status();
  EXPECT_NE(*scalar, *vector);
  EXPECT_NE(*vector, *unrolled);
  EXPECT_EQ((*scalar)[8], 1.0f);  // Widest lanes.
  EXPECT_EQ((*vector)[8], 16.0f);
  // Unrolling the row loop (outside k.i) replicates the update statement 8 times.
  EXPECT_FLOAT_EQ((*vector)[10], Lg(1));
  EXPECT_FLOAT_EQ((*unrolled)[10], Lg(8));
}

TEST(ExtractItervarFeatures, LoweredGemm512_Under100MicrosecondsPerExtraction) {
  lower::LoweredFunc f = LowerGemm(512, true, true);
  constexpr int kRuns = 500;
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < kRuns; ++r) ASSERT_TRUE(ExtractItervarFeatures(f).ok());
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
      kRuns;
  std::printf("itervar features of a 512^3 tiled GEMM: %.1f us per extraction\n", us);
  // Generous bound for a loaded 2-core machine and an unoptimized build.
  EXPECT_LT(us, 1000.0);
}

}  // namespace
}  // namespace tunefarm::tuner
