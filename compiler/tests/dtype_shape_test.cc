// Symbolic shapes bound at lowering, and non-fp32 dtypes: float16 elementwise (computed in
// float32), int8 matmul accumulating in int32, int32 arithmetic. Each is lowered, JIT-built,
// run and compared with a C++ loop.
#include <cmath>

#include "compiler/codegen/build.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;
using runtime::NDArray;
using te::Tensor;

// Lowers, JIT-builds and returns the kernel; the module is kept in *jit.
TfKernelFn Build(const schedule::Schedule& sch, const std::vector<Tensor>& args,
                 const lower::LowerOptions& opts, std::unique_ptr<codegen::JitModule>* jit) {
  auto f = lower::Lower(sch, args, "kernel", opts);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return nullptr;
  auto built = codegen::BuildJit({*f}, codegen::HostTarget());
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return nullptr;
  *jit = std::move(*built);
  return *(*jit)->Lookup("kernel");
}

TEST(SymbolicShape, TwoBindings_BothMatchReference) {
  Var n("n");
  Tensor A = te::Placeholder({n, 8}, DataType::Float(32), "A");
  auto k = te::ReduceAxis(8, "k");
  Tensor B =
      te::Compute(
          {n}, [&](const std::vector<Var>& i) { return te::Sum(A(i[0], k->var) * 2.0f, {k}); }, "B")
          .value();
  for (int64_t len : {5, 37}) {
    auto sch = *schedule::Schedule::Create({B});
    auto& b = (*sch)[B];
    auto s = *b.Split(b.axis(0), 4);  // 5 and 37 are not multiples of 4: guarded tails.
    ASSERT_TRUE(b.Vectorize(s.second).ok());
    lower::LowerOptions opts;
    opts.bindings[n.get()] = len;
    std::unique_ptr<codegen::JitModule> jit;
    TfKernelFn fn = Build(*sch, {A, B}, opts, &jit);
    ASSERT_NE(fn, nullptr);
    auto a = *NDArray::Empty({len, 8}, DataType::Float(32));
    auto out = *NDArray::Empty({len}, DataType::Float(32));
    a.FillRandom(len);
    ASSERT_TRUE(runtime::Call(fn, {&a, &out}).ok());
    for (int64_t i = 0; i < len; ++i) {
      double want = 0;
      for (int x = 0; x < 8; ++x) want += 2.0 * a.data<float>()[i * 8 + x];
      EXPECT_NEAR(out.data<float>()[i], want, 1e-4) << "n=" << len << " i=" << i;
    }
    // The kernel is compiled for this binding: another length is a shape error.
    auto other = *NDArray::Empty({len + 1, 8}, DataType::Float(32));
    auto other_out = *NDArray::Empty({len + 1}, DataType::Float(32));
    DLTensor* args[2] = {other.dl(), other_out.dl()};
    EXPECT_EQ(fn(args, 2), TF_KERNEL_BAD_SHAPE);
  }
}

TEST(SymbolicShape, Unbound_InvalidArgument) {
  Var n("n");
  Var m("m");
  Tensor A = te::Placeholder({n, m}, DataType::Float(32), "A");
  Tensor B = te::Compute(
                 {n, m}, [&](const std::vector<Var>& i) { return A(i[0], i[1]) + 1.0f; }, "B")
                 .value();
  auto sch = *schedule::Schedule::Create({B});
  lower::LowerOptions opts;
  opts.bindings[n.get()] = 4;  // m stays unbound.
  auto f = lower::Lower(*sch, {A, B}, "kernel", opts);
  ASSERT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(f.status().message().find("symbolic extent m"), std::string::npos) << f.status();
}

// Setting an integer element from a double is defined for every double: rounded toward zero,
// clamped to the type's range, NaN (the tests' "not written" fill) the type's minimum. These
// were plain casts, undefined behaviour that UBSan stopped on in the fuzz build's run of the
// generated-space tests (an int32 output filled with NaN).
TEST(Dtype, IntegerElementFromAnyDouble_RoundedClampedNaNIsMinimum) {
  auto i32 = runtime::NDArray::Empty({4}, ir::DataType::Int(32));
  ASSERT_TRUE(i32.ok());
  i32->Fill(NAN);
  EXPECT_EQ(i32->Get(0), -2147483648.0);
  i32->Set(1, 1e12);
  i32->Set(2, -7.9);
  i32->Set(3, 7.9);
  EXPECT_EQ(i32->Get(1), 2147483647.0);
  EXPECT_EQ(i32->Get(2), -7.0);
  EXPECT_EQ(i32->Get(3), 7.0);
  auto u8 = runtime::NDArray::Empty({3}, ir::DataType::UInt(8));
  ASSERT_TRUE(u8.ok());
  u8->Set(0, NAN);
  u8->Set(1, 300.0);
  u8->Set(2, -5.0);
  EXPECT_EQ(u8->Get(0), 0.0);
  EXPECT_EQ(u8->Get(1), 255.0);
  EXPECT_EQ(u8->Get(2), 0.0);
  auto i8 = runtime::NDArray::Empty({1}, ir::DataType::Int(8));
  ASSERT_TRUE(i8.ok());
  i8->Set(0, -1000.0);
  EXPECT_EQ(i8->Get(0), -128.0);
}

TEST(Dtype, Float16Elementwise_ComputedInFloat32_MatchesReference) {
  const int n = 45;
  Tensor A = te::Placeholder({n}, DataType::Float(16), "A");
  Tensor B = te::Placeholder({n}, DataType::Float(16), "B");
  Tensor C = te::Compute(
                 {n},
                 [&](const std::vector<Var>& i) {
                   Expr a = ir::cast(DataType::Float(32), A(i[0]));
                   Expr b = ir::cast(DataType::Float(32), B(i[0]));
                   return ir::cast(DataType::Float(16), a * b + a);
                 },
                 "C")
                 .value();
  auto sch = *schedule::Schedule::Create({C});
  auto& c = (*sch)[C];
  auto s = *c.Split(c.axis(0), 8);
  ASSERT_TRUE(c.Vectorize(s.second).ok());
  std::unique_ptr<codegen::JitModule> jit;
  TfKernelFn fn = Build(*sch, {A, B, C}, {}, &jit);
  ASSERT_NE(fn, nullptr);
  auto a = *NDArray::Empty({n}, DataType::Float(16));
  auto b = *NDArray::Empty({n}, DataType::Float(16));
  auto out = *NDArray::Empty({n}, DataType::Float(16));
  a.FillRandom(1, -2, 2);
  b.FillRandom(2, -2, 2);
  ASSERT_TRUE(runtime::Call(fn, {&a, &b, &out}).ok());
  for (int i = 0; i < n; ++i) {
    double want = a.Get(i) * b.Get(i) + a.Get(i);
    EXPECT_NEAR(out.Get(i), want, 2e-3 * (1 + std::fabs(want))) << i;  // fp16 rounding.
  }
}

TEST(Dtype, Int8MatmulInt32Accumulation_Exact) {
  const int m = 9, n = 20, k = 70;  // 70 · 127 · 127 overflows int8 and int16 products.
  Tensor A = te::Placeholder({m, k}, DataType::Int(8), "A");
  Tensor B = te::Placeholder({k, n}, DataType::Int(8), "B");
  auto kk = te::ReduceAxis(k, "k");
  Tensor C = te::Compute(
                 {m, n},
                 [&](const std::vector<Var>& i) {
                   return te::Sum(ir::cast(DataType::Int(32), A(i[0], kk->var)) *
                                      ir::cast(DataType::Int(32), B(kk->var, i[1])),
                                  {kk});
                 },
                 "C")
                 .value();
  auto sch = *schedule::Schedule::Create({C});
  Tensor CC = *sch->CacheWrite(C, "local");
  auto& c = (*sch)[C];
  auto t = *c.Tile(c.axis(0), c.axis(1), 4, 8);
  ASSERT_TRUE((*sch)[CC].ComputeAt(c, t[1]).ok());
  auto& cc = (*sch)[CC];
  ASSERT_TRUE(cc.Reorder({cc.reduce_axis(0), cc.axis(0), cc.axis(1)}).ok());
  ASSERT_TRUE(cc.Vectorize(cc.axis(1)).ok());
  ASSERT_TRUE(c.Vectorize(t[3]).ok());
  std::unique_ptr<codegen::JitModule> jit;
  TfKernelFn fn = Build(*sch, {A, B, C}, {}, &jit);
  ASSERT_NE(fn, nullptr);
  auto a = *NDArray::Empty({m, k}, DataType::Int(8));
  auto b = *NDArray::Empty({k, n}, DataType::Int(8));
  auto out = *NDArray::Empty({m, n}, DataType::Int(32));
  a.FillRandom(3, -128, 128);
  b.FillRandom(4, -128, 128);
  ASSERT_TRUE(runtime::Call(fn, {&a, &b, &out}).ok());
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      int32_t want = 0;
      for (int x = 0; x < k; ++x) {
        want += int32_t{a.data<int8_t>()[i * k + x]} * int32_t{b.data<int8_t>()[x * n + j]};
      }
      EXPECT_EQ(out.data<int32_t>()[i * n + j], want) << i << "," << j;
    }
  }
}

TEST(Dtype, Int32FloorDivModAndMinMax_Exact) {
  const int n = 50;
  Tensor A = te::Placeholder({n}, DataType::Int(32), "A");
  Tensor C =
      te::Compute(
          {n},
          [&](const std::vector<Var>& i) {
            Expr a = A(i[0]);
            return ir::floordiv(a, 7) * 3 + ir::floormod(a, 7) - ir::max(a, i[0]) + ir::min(a, 5);
          },
          "C")
          .value();
  auto sch = *schedule::Schedule::Create({C});
  auto& c = (*sch)[C];
  auto s = *c.Split(c.axis(0), 16);
  ASSERT_TRUE(c.Vectorize(s.second).ok());
  std::unique_ptr<codegen::JitModule> jit;
  TfKernelFn fn = Build(*sch, {A, C}, {}, &jit);
  ASSERT_NE(fn, nullptr);
  auto a = *NDArray::Empty({n}, DataType::Int(32));
  auto out = *NDArray::Empty({n}, DataType::Int(32));
  a.FillRandom(5, -100, 100);
  ASSERT_TRUE(runtime::Call(fn, {&a, &out}).ok());
  auto floordiv = [](int x, int y) { return x / y - ((x % y != 0) && ((x < 0) != (y < 0))); };
  for (int i = 0; i < n; ++i) {
    int x = a.data<int32_t>()[i];
    int want = floordiv(x, 7) * 3 + (x - floordiv(x, 7) * 7) - std::max(x, i) + std::min(x, 5);
    EXPECT_EQ(out.data<int32_t>()[i], want) << "x=" << x;
  }
}

TEST(Vectorize, TwoNestedVectorLoopsOfEqualWidth_MatchReference) {
  // Both loops vectorized with 4 lanes: the outer one must not mistake the inner vectors for
  // its own lanes.
  Tensor A = te::Placeholder({4, 4}, DataType::Float(32), "A");
  Tensor B =
      te::Compute(
          {4, 4}, [&](const std::vector<Var>& i) { return A(i[0], i[1]) * 3.0f + 1.0f; }, "B")
          .value();
  auto sch = *schedule::Schedule::Create({B});
  auto& b = (*sch)[B];
  ASSERT_TRUE(b.Vectorize(b.axis(0)).ok());
  ASSERT_TRUE(b.Vectorize(b.axis(1)).ok());
  std::unique_ptr<codegen::JitModule> jit;
  TfKernelFn fn = Build(*sch, {A, B}, {}, &jit);
  ASSERT_NE(fn, nullptr);
  auto a = *NDArray::Empty({4, 4}, DataType::Float(32));
  auto out = *NDArray::Empty({4, 4}, DataType::Float(32));
  a.FillRandom(6);
  ASSERT_TRUE(runtime::Call(fn, {&a, &out}).ok());
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(out.data<float>()[i], a.data<float>()[i] * 3 + 1, 1e-5);
}

}  // namespace
}  // namespace tunefarm
