#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/build.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

namespace tunefarm::codegen {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;
using runtime::NDArray;
using te::Tensor;

struct Gemm {
  Tensor A, B, C;
  std::unique_ptr<schedule::Schedule> sch;
};

Gemm MakeGemm(int m, int n, int k) {
  Gemm g;
  g.A = te::Placeholder({m, k}, DataType::Float(32), "A");
  g.B = te::Placeholder({k, n}, DataType::Float(32), "B");
  auto kk = te::ReduceAxis(k, "k");
  g.C = te::Compute(
            {m, n},
            [&](const std::vector<Var>& i) {
              return te::Sum(g.A(i[0], kk->var) * g.B(kk->var, i[1]), {kk});
            },
            "C")
            .value();
  g.sch = *schedule::Schedule::Create({g.C});
  return g;
}

void CheckGemm(TfKernelFn fn, int m, int n, int k) {
  auto a = *NDArray::Empty({m, k}, DataType::Float(32));
  auto b = *NDArray::Empty({k, n}, DataType::Float(32));
  auto c = *NDArray::Empty({m, n}, DataType::Float(32));
  auto ref = *NDArray::Empty({m, n}, DataType::Float(32));
  a.FillRandom(1);
  b.FillRandom(2);
  c.Fill(NAN);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int x = 0; x < k; ++x) s += a.data<float>()[i * k + x] * b.data<float>()[x * n + j];
      ref.data<float>()[i * n + j] = static_cast<float>(s);
    }
  }
  ASSERT_TRUE(runtime::Call(fn, {&a, &b, &c}).ok());
  EXPECT_LE(runtime::MaxRelError(c, ref, 1e-4, 1e-4), 1.0);
}

// C in tiles of `rows` × 16, accumulated in a local tile computed at the column tile's loop, K
// split by 4 outside the rows, the 16 columns in vectors.
struct TiledGemm {
  schedule::Stage* c;
  schedule::Stage* cc;
  te::IterVar row_tiles;  // The outer loop of C's rows.
  te::IterVar k_outer;    // The accumulator's outer reduction loop.
};
TiledGemm TileGemm(Gemm& g, int rows) {
  Tensor CC = *g.sch->CacheWrite(g.C, "local");
  auto& c = (*g.sch)[g.C];
  auto t = *c.Tile(c.axis(0), c.axis(1), rows, 16);
  EXPECT_TRUE((*g.sch)[CC].ComputeAt(c, t[1]).ok());
  auto& cc = (*g.sch)[CC];
  auto ks = *cc.Split(cc.reduce_axis(0), 4);
  EXPECT_TRUE(cc.Reorder({ks.first, cc.axis(0), ks.second, cc.axis(1)}).ok());
  EXPECT_TRUE(cc.Vectorize(cc.axis(1)).ok());
  EXPECT_TRUE(c.Vectorize(t[3]).ok());
  return {&c, &cc, t[0], ks.first};
}

TEST(Codegen, TiledGemm_Jit_MatchesReference) {
  const int m = 67, n = 45, k = 33;  // Nothing divides: guards and partitioned tails.
  Gemm g = MakeGemm(m, n, k);
  TiledGemm t = TileGemm(g, 8);
  ASSERT_TRUE(t.cc->Unroll(t.cc->axis(0)).ok());
  ASSERT_TRUE(t.c->Parallel(t.row_tiles).ok());
  auto f = lower::Lower(*g.sch, {g.A, g.B, g.C}, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  auto jit = BuildJit({*f}, HostTarget());
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto fn = (*jit)->Lookup("gemm");
  ASSERT_TRUE(fn.ok());
  CheckGemm(*fn, m, n, k);
}

// Software prefetches (Stage::Prefetch) of both inputs, on a GEMM no tile divides: the same
// results, and the x86 assembly holds the prefetch instructions (llvm.prefetch, read, all levels:
// prefetcht0), the last iterations' look-ahead past the buffers' ends included.
TEST(Codegen, Prefetch_SameResultsAndPrefetchInstructions) {
  const int m = 5, n = 45, k = 70;
  Gemm g = MakeGemm(m, n, k);
  TiledGemm t = TileGemm(g, 2);
  ASSERT_TRUE(t.cc->Prefetch(g.B, t.k_outer, 1024).ok());
  ASSERT_TRUE(t.cc->Prefetch(g.A, t.k_outer, 64).ok());
  auto f = lower::Lower(*g.sch, {g.A, g.B, g.C}, "gemm_prefetch");
  ASSERT_TRUE(f.ok()) << f.status();
  auto jit = BuildJit({*f}, HostTarget());
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto fn = (*jit)->Lookup("gemm_prefetch");
  ASSERT_TRUE(fn.ok());
  CheckGemm(*fn, m, n, k);
  auto asm_text = BuildAssembly({*f}, *ParseTarget("llvm -mcpu=skylake-avx512"));
  ASSERT_TRUE(asm_text.ok()) << asm_text.status();
  EXPECT_NE(asm_text->find("prefetcht0"), std::string::npos) << *asm_text;
}

// Lowers and JIT-compiles one kernel; null (with a test failure) when a step fails. The
// module is kept in `*keep`.
TfKernelFn JitKernel(const schedule::Schedule& sch, const std::vector<Tensor>& args,
                     const std::string& name, std::unique_ptr<JitModule>* keep,
                     const Target& target = HostTarget()) {
  auto f = lower::Lower(sch, args, name);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return nullptr;
  auto jit = BuildJit({*f}, target);
  EXPECT_TRUE(jit.ok()) << jit.status();
  if (!jit.ok()) return nullptr;
  *keep = *std::move(jit);
  auto fn = (*keep)->Lookup(name);
  EXPECT_TRUE(fn.ok()) << fn.status();
  return fn.ok() ? *fn : nullptr;
}

// Y[i] = f(X[i]) over `xs` (a multiple of 16 elements), the loop vectorized by 16 or scalar;
// the results, or nothing (with a test failure) when a step fails.
std::vector<float> RunElementwise(const std::vector<float>& xs, const std::function<Expr(Expr)>& f,
                                  bool vector) {
  const int n = static_cast<int>(xs.size());
  Tensor X = te::Placeholder({n}, DataType::Float(32), "X");
  Tensor Y = *te::Compute(
      {n}, [&](const std::vector<Var>& i) { return f(X(i[0])); }, "Y");
  auto sch = *schedule::Schedule::Create({Y});
  if (vector) {
    auto& y = (*sch)[Y];
    auto split = *y.Split(y.axis(0), 16);
    EXPECT_TRUE(y.Vectorize(split.second).ok());
  }
  std::unique_ptr<JitModule> jit;
  TfKernelFn fn = JitKernel(*sch, {X, Y}, "f", &jit);
  if (fn == nullptr) return {};
  auto x = *NDArray::Empty({n}, DataType::Float(32));
  auto y = *NDArray::Empty({n}, DataType::Float(32));
  std::copy(xs.begin(), xs.end(), x.data<float>());
  EXPECT_TRUE(runtime::Call(fn, {&x, &y}).ok());
  return std::vector<float>(y.data<float>(), y.data<float>() + n);
}

// exp, sigmoid, tanh and recip, vectorized (16 lanes) and scalar, against libm over the whole float
// range: exp within a few ulp, inf and 0 at the ends, gradual underflow, NaN kept.
TEST(Codegen, ExpFamily_VectorAndScalar_MatchLibm) {
  std::vector<float> xs = {0.0f,  -0.0f,  1.0f,     -1.0f,     0.5f,    88.7f,
                           88.8f, -87.0f, -100.0f,  -103.9f,   -104.5f, 1e-8f,
                           20.0f, -20.0f, INFINITY, -INFINITY, NAN};
  for (int i = 0; i < 4000; ++i) xs.push_back(-110.0f + 200.0f * static_cast<float>(i) / 4000);
  while (xs.size() % 16 != 0) xs.push_back(3.0f);
  const int n = static_cast<int>(xs.size());
  for (const char* fn_name : {"exp", "sigmoid", "tanh", "recip"}) {
    for (bool vector : {true, false}) {
      std::vector<float> out = RunElementwise(
          xs, [&](Expr x) { return ir::CallNode::Make(DataType::Float(32), fn_name, {x}); },
          vector);
      ASSERT_EQ(out.size(), xs.size());
      for (int i = 0; i < n; ++i) {
        const double v = xs[i];
        const double want = std::string(fn_name) == "exp"       ? std::exp(v)
                            : std::string(fn_name) == "sigmoid" ? 1.0 / (1.0 + std::exp(-v))
                            : std::string(fn_name) == "recip"   ? 1.0 / v
                                                                : std::tanh(v);
        const float got = out[i];
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got)) << fn_name << "(" << v << ")";
        } else if (std::isinf(static_cast<float>(want)) || want == 0.0) {
          EXPECT_EQ(got, static_cast<float>(want)) << fn_name << "(" << v << ")";
        } else {
          // exp: a few ulp (1e-44 absolute for denormal results). sigmoid is 1 / (1 + e^-x),
          // 0 once e^-x overflows (x < -88.7, where the true value is below FLT_MIN); tanh is
          // 1 - 2 / (e^2x + 1), which cancels near 0 (1e-7 absolute).
          const double abs_tol = std::string(fn_name) == "exp"       ? 1e-44
                                 : std::string(fn_name) == "sigmoid" ? 1.2e-38
                                                                     : 1e-7;
          EXPECT_NEAR(got, want, std::abs(want) * 4e-7 + abs_tol) << fn_name << "(" << v << ")";
        }
      }
    }
  }
}

// erf (the rational approximation of ir::erf), vectorized and scalar, against libm: within
// 5e-7 absolute everywhere, exactly odd, ±1 at ±inf, 0 at 0, NaN kept.
TEST(Codegen, Erf_VectorAndScalar_MatchLibm) {
  std::vector<float> xs = {0.0f, 1e-30f, 1e-8f, 3.9f, 3.92f, 3.93f, 10.0f, INFINITY, NAN};
  for (int i = 0; i <= 6000; ++i) xs.push_back(-6.0f + 12.0f * static_cast<float>(i) / 6000);
  const size_t half = xs.size();
  for (size_t i = 0; i < half; ++i) xs.push_back(-xs[i]);
  while (xs.size() % 16 != 0) xs.push_back(0.25f);
  const int n = static_cast<int>(xs.size());
  for (bool vector : {true, false}) {
    const std::vector<float> out = RunElementwise(xs, ir::erf, vector);
    ASSERT_EQ(out.size(), xs.size());
    const float* got = out.data();
    for (int i = 0; i < n; ++i) {
      const double want = std::erf(static_cast<double>(xs[i]));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got[i])) << "erf(" << xs[i] << ")";
      } else {
        EXPECT_NEAR(got[i], want, 5e-7) << "erf(" << xs[i] << ")";
      }
    }
    for (size_t i = 0; i < half; ++i) {
      if (!std::isnan(xs[i])) {
        EXPECT_EQ(got[i], -got[i + half]) << "erf(" << xs[i] << ")";
      }
    }
    EXPECT_EQ(got[0], 0.0f);
  }
}

// A reduce axis vectorized as a horizontal reduction (VectorizeReduction): sums, maxima and
// minima of float32 and int32 rows of 16, with NaN-free, mixed-sign values, match the serial
// loop (sums within float rounding, since the lanes are added in a tree).
TEST(Codegen, VectorizedReduction_HorizontalMatchesSerial) {
  const int rows = 7, lanes = 16;
  for (DataType dt : {DataType::Float(32), DataType::Int(32)}) {
    for (const char* kind : {"sum", "max", "min"}) {
      Tensor X = te::Placeholder({rows, lanes}, dt, "X");
      te::IterVar r = te::ReduceAxis(lanes, "r");
      Tensor Y = *te::Compute(
          {rows},
          [&](const std::vector<Var>& i) {
            const ir::Expr x = X(i[0], r->var);
            return std::string(kind) == "sum"   ? te::Sum(x, {r})
                   : std::string(kind) == "max" ? te::Max(x, {r})
                                                : te::Min(x, {r});
          },
          "Y");
      auto sch = *schedule::Schedule::Create({Y});
      ASSERT_TRUE((*sch)[Y].VectorizeReduction((*sch)[Y].reduce_axis(0)).ok());
      auto lowered = lower::Lower(*sch, {X, Y}, "h");
      ASSERT_TRUE(lowered.ok()) << lowered.status();
      EXPECT_NE(ir::ToString(lowered->body).find("vector_reduce_"), std::string::npos)
          << ir::ToString(lowered->body);
      std::unique_ptr<JitModule> jit;
      TfKernelFn fn = JitKernel(*sch, {X, Y}, "h", &jit);
      ASSERT_NE(fn, nullptr);
      auto x = *NDArray::Empty({rows, lanes}, dt);
      auto y = *NDArray::Empty({rows}, dt);
      for (int i = 0; i < rows * lanes; ++i) {
        const int v = (i * 37) % 23 - 11;
        if (dt.is_float()) {
          x.data<float>()[i] = 0.25f * static_cast<float>(v);
        } else {
          x.data<int32_t>()[i] = v;
        }
      }
      ASSERT_TRUE(runtime::Call(fn, {&x, &y}).ok());
      for (int row = 0; row < rows; ++row) {
        double want = std::string(kind) == "sum" ? 0 : std::string(kind) == "max" ? -1e9 : 1e9;
        for (int l = 0; l < lanes; ++l) {
          const double v =
              dt.is_float() ? x.data<float>()[row * lanes + l] : x.data<int32_t>()[row * lanes + l];
          want = std::string(kind) == "sum"   ? want + v
                 : std::string(kind) == "max" ? std::max(want, v)
                                              : std::min(want, v);
        }
        const double got = dt.is_float() ? y.data<float>()[row] : y.data<int32_t>()[row];
        EXPECT_NEAR(got, want, 1e-5) << kind << " " << dt.ToString() << " row " << row;
      }
    }
  }
}

// A vector load with a small constant stride (a stride-2 window) is a contiguous load and a
// shuffle; the values are those of the strided elements.
TEST(Codegen, StridedVectorLoad_PicksEveryStrideElement) {
  const int n = 64;
  for (int stride : {2, 3, 5}) {
    Tensor X = te::Placeholder({n * stride}, DataType::Float(32), "X");
    Tensor Y = *te::Compute(
        {n}, [&](const std::vector<Var>& i) { return X(i[0] * stride) + 1.0f; }, "Y");
    auto sch = *schedule::Schedule::Create({Y});
    auto& y = (*sch)[Y];
    auto split = *y.Split(y.axis(0), 16);
    ASSERT_TRUE(y.Vectorize(split.second).ok());
    std::unique_ptr<JitModule> jit;
    TfKernelFn fn = JitKernel(*sch, {X, Y}, "g", &jit);
    ASSERT_NE(fn, nullptr);
    auto x = *NDArray::Empty({n * stride}, DataType::Float(32));
    auto y_out = *NDArray::Empty({n}, DataType::Float(32));
    for (int i = 0; i < n * stride; ++i) x.data<float>()[i] = static_cast<float>(i);
    ASSERT_TRUE(runtime::Call(fn, {&x, &y_out}).ok());
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(y_out.data<float>()[i], static_cast<float>(i * stride + 1)) << stride << " " << i;
    }
  }
}

// JitKernel for a copy whose assembly must have no per-lane loads (no gather, no insertps);
// null (with a test failure) otherwise.
TfKernelFn JitCopyWithoutPerLaneLoads(const schedule::Schedule& sch,
                                      const std::vector<Tensor>& args, const std::string& name,
                                      std::unique_ptr<JitModule>* keep) {
  auto f = lower::Lower(sch, args, name);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return nullptr;
  auto assembly = BuildAssembly({*f}, HostTarget());
  EXPECT_TRUE(assembly.ok()) << assembly.status();
  if (!assembly.ok()) return nullptr;
  EXPECT_EQ(assembly->find("gather"), std::string::npos) << *assembly;
  EXPECT_EQ(assembly->find("insertps"), std::string::npos) << *assembly;
  return JitKernel(sch, args, name, keep);
}

// A vector whose lanes read a group of `period` consecutive elements in turn (lane i reads
// X[g * period + (i + phase) mod period] for the g-th vector; examples/programs/dense_pairs.te
// reads A that way) is one load of the group, repeated: no per-lane loads in the assembly, and
// every lane gets its element, for groups of 2 and 4 and a phase of 0 and 1.
TEST(Codegen, PeriodicVectorLoad_OneGroupRepeated_MatchesReference) {
  const int groups = 8;
  for (int period : {2, 4}) {
    for (int phase : {0, 1}) {
      Tensor X = te::Placeholder({groups * period}, DataType::Float(32), "X");
      Tensor Y = *te::Compute(
          {groups * 16},
          [&](const std::vector<Var>& i) {
            return X(ir::floordiv(i[0], 16) * period + ir::floormod(i[0] + phase, period)) + 1.0f;
          },
          "Y");
      auto sch = *schedule::Schedule::Create({Y});
      auto& y = (*sch)[Y];
      auto split = *y.Split(y.axis(0), 16);
      ASSERT_TRUE(y.Vectorize(split.second).ok());
      std::unique_ptr<JitModule> jit;
      TfKernelFn fn = JitCopyWithoutPerLaneLoads(*sch, {X, Y}, "periodic", &jit);
      ASSERT_NE(fn, nullptr);
      auto x = *NDArray::Empty({groups * period}, DataType::Float(32));
      auto y_out = *NDArray::Empty({groups * 16}, DataType::Float(32));
      for (int i = 0; i < groups * period; ++i) x.data<float>()[i] = static_cast<float>(i);
      ASSERT_TRUE(runtime::Call(fn, {&x, &y_out}).ok());
      for (int i = 0; i < groups * 16; ++i) {
        const int want = (i / 16) * period + (i + phase) % period;
        EXPECT_EQ(y_out.data<float>()[i], static_cast<float>(want + 1))
            << period << " " << phase << " " << i;
      }
    }
  }
}

// A packed copy's transpose, B[jo, d, ji] = A[jo * L + ji, d] with d unrolled by 16 and ji
// vectorized: 16 strided copies become contiguous loads of A and an in-register transpose
// (no per-lane loads or gathers in the code), for vectors of 16 and of 32 lanes, and every
// element lands where it should.
TEST(Codegen, TransposedCopies_ContiguousLoadsAndShuffles_MatchReference) {
  for (int lanes : {16, 32}) {
    const int rows = 2 * lanes, cols = 48;
    Tensor A = te::Placeholder({rows, cols}, DataType::Float(32), "A");
    Tensor B = *te::Compute(
        {rows / lanes, cols, lanes},
        [&](const std::vector<Var>& i) { return A(i[0] * lanes + i[2], i[1]); }, "B");
    auto sch = *schedule::Schedule::Create({B});
    auto& b = (*sch)[B];
    auto d = *b.Split(b.axis(1), 16);
    ASSERT_TRUE(b.Unroll(d.second).ok());
    ASSERT_TRUE(b.Vectorize(b.axis(2)).ok());
    std::unique_ptr<JitModule> jit;
    TfKernelFn fn = JitCopyWithoutPerLaneLoads(*sch, {A, B}, "pack", &jit);
    ASSERT_NE(fn, nullptr);
    auto a = *NDArray::Empty({rows, cols}, DataType::Float(32));
    auto out = *NDArray::Empty({rows / lanes, cols, lanes}, DataType::Float(32));
    for (int i = 0; i < rows * cols; ++i) a.data<float>()[i] = static_cast<float>(i);
    ASSERT_TRUE(runtime::Call(fn, {&a, &out}).ok());
    for (int jo = 0; jo < rows / lanes; ++jo) {
      for (int k = 0; k < cols; ++k) {
        for (int ji = 0; ji < lanes; ++ji) {
          ASSERT_EQ(out.data<float>()[(jo * cols + k) * lanes + ji],
                    a.data<float>()[(jo * lanes + ji) * cols + k])
              << lanes << " lanes: " << jo << " " << k << " " << ji;
        }
      }
    }
  }
}

// The same for copies whose stores are further apart than a vector: unblocking
// B[f, x] = A[f / 16, x, f % 16] with f unrolled by 16 and x in vectors of 16 stores vector t
// at b + t * 48 (a row of B).
TEST(Codegen, TransposedCopies_StoresARowApart_MatchReference) {
  const int blocks = 2, width = 48;
  Tensor A = te::Placeholder({blocks, width, 16}, DataType::Float(32), "A");
  Tensor B = *te::Compute(
      {blocks * 16, width},
      [&](const std::vector<Var>& i) { return A(i[0] / 16, i[1], i[0] % 16); }, "B");
  auto sch = *schedule::Schedule::Create({B});
  auto& b = (*sch)[B];
  auto f = *b.Split(b.axis(0), 16);
  auto x = *b.Split(b.axis(1), 16);
  ASSERT_TRUE(b.Reorder({f.first, x.first, f.second, x.second}).ok());
  ASSERT_TRUE(b.Unroll(f.second).ok());
  ASSERT_TRUE(b.Vectorize(x.second).ok());
  std::unique_ptr<JitModule> jit;
  TfKernelFn fn = JitCopyWithoutPerLaneLoads(*sch, {A, B}, "unblock", &jit);
  ASSERT_NE(fn, nullptr);
  auto a = *NDArray::Empty({blocks, width, 16}, DataType::Float(32));
  auto out = *NDArray::Empty({blocks * 16, width}, DataType::Float(32));
  for (int i = 0; i < blocks * width * 16; ++i) a.data<float>()[i] = static_cast<float>(i);
  ASSERT_TRUE(runtime::Call(fn, {&a, &out}).ok());
  for (int fi = 0; fi < blocks * 16; ++fi) {
    for (int xi = 0; xi < width; ++xi) {
      ASSERT_EQ(out.data<float>()[fi * width + xi],
                a.data<float>()[((fi / 16) * width + xi) * 16 + fi % 16])
          << fi << " " << xi;
    }
  }
}

// C[i, j] = Σ_{r < k/4} Σ_{u < 4} int32(A[i, 4r + u]) * int32(W[weight_index(j, r, u)]), its j axis
// split by `lanes` and vectorized inside the reduction: the schedule, and its assembly for
// `target`.
struct DotKernel {
  Tensor C;
  std::unique_ptr<schedule::Schedule> sch;
  std::string assembly;
};
DotKernel ScheduleDot(const Tensor& A, const Tensor& W, int m, int n, int k, int lanes,
                      const std::function<std::vector<Expr>(const Var&, const Var&, int)>& w_at,
                      const Target& target) {
  auto r = te::ReduceAxis(k / 4, "r");
  DotKernel d;
  d.C = *te::Compute(
      {m, n},
      [&](const std::vector<Var>& i) {
        Expr sum;
        for (int u = 0; u < 4; ++u) {
          Expr p = ir::cast(DataType::Int(32), A(i[0], r->var * 4 + u)) *
                   ir::cast(DataType::Int(32), W(w_at(i[1], r->var, u)));
          sum = u == 0 ? p : sum + p;
        }
        return te::Sum(sum, {r});
      },
      "C");
  d.sch = *schedule::Schedule::Create({d.C});
  auto& c = (*d.sch)[d.C];
  auto j = *c.Split(c.axis(1), lanes);
  EXPECT_TRUE(c.Reorder({c.axis(0), j.first, c.reduce_axis(0), j.second}).ok());
  EXPECT_TRUE(c.Vectorize(j.second).ok());
  auto f = lower::Lower(*d.sch, {A, W, d.C}, "dot");
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return d;
  auto assembly = BuildAssembly({*f}, target);
  EXPECT_TRUE(assembly.ok()) << assembly.status();
  if (assembly.ok()) d.assembly = *assembly;
  return d;
}

// Runs the dot kernel `fn` of ScheduleDot on A (m x k of `a_type`: uint8, int8 or int16, filled
// over its whole range) and `w`, and checks every output against the scalar sum, the weight of
// output jj and input kk being `weight(jj, kk)` (int32 wrapping, as the program's sums do).
void ExpectDotMatches(TfKernelFn fn, DataType a_type, int m, int n, int k, NDArray& w,
                      const std::function<int32_t(int, int)>& weight, const std::string& what) {
  auto a = *NDArray::Empty({m, k}, a_type);
  auto out = *NDArray::Empty({m, n}, DataType::Int(32));
  const bool words = a_type.bits == 16;
  for (int i = 0; i < m * k; ++i) {
    if (words) {
      a.data<int16_t>()[i] = static_cast<int16_t>(i * 7919 + 11);  // Wraps over all of int16.
    } else {
      a.data<uint8_t>()[i] = static_cast<uint8_t>(i * 37 + 11);
    }
  }
  // Row 0's first pair of int16 at -32768: with a weight pair at -32768 too, vpmaddwd's one
  // sum that leaves int32 (2^31).
  if (words) a.data<int16_t>()[0] = a.data<int16_t>()[1] = -32768;
  auto a_at = [&](int i) -> int64_t {
    if (words) return a.data<int16_t>()[i];
    const uint8_t raw = a.data<uint8_t>()[i];
    return a_type.is_uint() ? raw : static_cast<int8_t>(raw);
  };
  ASSERT_TRUE(runtime::Call(fn, {&a, &w, &out}).ok());
  for (int i = 0; i < m; ++i) {
    for (int jj = 0; jj < n; ++jj) {
      uint32_t want = 0;
      for (int kk = 0; kk < k; ++kk) {
        want += static_cast<uint32_t>(a_at(i * k + kk) * weight(jj, kk));
      }
      ASSERT_EQ(out.data<int32_t>()[i * n + jj], static_cast<int32_t>(want))
          << what << ": " << i << " " << jj;
    }
  }
}

// int32 sums of four byte products, one byte broadcast and one vector of a weight in the VNNI
// layout [N/16][K/4][16][4]: C[i, j] = Σ_k Σ_u int32(A[i, 4k+u]) * int32(W[j/16, k, j%16, u]).
// With A unsigned and W signed, each group of four is one vpdpbusd per 16 lanes on a VNNI target
// (this host, where it has VNNI), or two vpmaddwd per 8 lanes on an AVX2 one (haswell, run where
// the host has AVX2), for vectors of 16 and 32 lanes; with both signed (not the operands these
// take) the plain code stays. Every element matches the scalar sum, the bytes spanning their
// whole ranges (vpmaddubsw, whose int16 sums saturate, would not).
TEST(Codegen, ByteDotProducts_VnniAndAvx2_MatchReference) {
  std::vector<std::pair<Target, std::string>> targets;  // A target and the dot it should use.
  if (__builtin_cpu_supports("avx512vnni")) targets.emplace_back(HostTarget(), "vpdpbusd");
  if (__builtin_cpu_supports("avx2")) {
    absl::StatusOr<Target> haswell = ParseTarget("llvm -mcpu=haswell");
    ASSERT_TRUE(haswell.ok()) << haswell.status();
    targets.emplace_back(*haswell, "vpmaddwd");
  }
  if (targets.empty()) GTEST_SKIP() << "neither AVX-512 VNNI nor AVX2 on this CPU";
  const int m = 3, n = 64, k = 32;
  for (const auto& [target, dot] : targets) {
    for (const bool a_unsigned : {true, false}) {
      for (const int lanes : {16, 32}) {
        const std::string what =
            absl::StrCat(target.str, ", ", lanes, " lanes, A ", a_unsigned ? "uint8" : "int8");
        const DataType a_type = a_unsigned ? DataType::UInt(8) : DataType::Int(8);
        Tensor A = te::Placeholder({m, k}, a_type, "A");
        Tensor W = te::Placeholder({n / 16, k / 4, 16, 4}, DataType::Int(8), "W");
        DotKernel dk = ScheduleDot(
            A, W, m, n, k, lanes,
            [](const Var& j, const Var& r, int u) -> std::vector<Expr> {
              return {ir::floordiv(j, 16), r, ir::floormod(j, 16), u};
            },
            target);
        ASSERT_FALSE(dk.assembly.empty()) << what;
        const Tensor& C = dk.C;
        const std::string* assembly = &dk.assembly;
        if (dot == "vpdpbusd") {
          EXPECT_EQ(assembly->find(dot) != std::string::npos, a_unsigned) << what;
        } else if (a_unsigned) {
          // LLVM's own code for the plain sums also has vpmaddwd, around byte inserts.
          EXPECT_NE(assembly->find(dot), std::string::npos) << what;
          EXPECT_EQ(assembly->find("vpinsrb"), std::string::npos) << what;
          EXPECT_EQ(assembly->find("vpextrb"), std::string::npos) << what;
        }
        std::unique_ptr<JitModule> jit;
        TfKernelFn fn = JitKernel(*dk.sch, {A, W, C}, "dot", &jit, target);
        ASSERT_NE(fn, nullptr);
        auto w = *NDArray::Empty({n / 16, k / 4, 16, 4}, DataType::Int(8));
        for (int i = 0; i < n * k; ++i) w.data<int8_t>()[i] = static_cast<int8_t>(i * 53 + 7);
        ExpectDotMatches(
            fn, a_type, m, n, k, w,
            [&](int jj, int kk) {
              return w.data<int8_t>()[((jj / 16 * (k / 4) + kk / 4) * 16 + jj % 16) * 4 + kk % 4];
            },
            what);
      }
    }
  }
}

// A weight widened to int16 ahead of time: C[i, j] = Σ_k Σ_u int32(A[i, 4k+u]) * int32(W16[...])
// is two vpmaddwd per 8 lanes reading W16 as it is, on an AVX2 target. With A bytes (unsigned or
// signed), W16[j/8, k, u%2, j%8, u/2], each lane's pairs (u0, u2) and (u1, u3) as A's widened
// bytes are (no shift widens the weight; with A unsigned no arithmetic shift at all: A's bytes
// are widened by vpand and vpsrlw). With A int16 too (dense_u8s8_avx2.te), W16[j/8, k, u/2,
// j%8, u%2], the pairs (u0, u1) and (u2, u3), each one 32-bit broadcast of A: no shift, no
// mask. Every element matches the scalar sum, the int16 values spanning the whole of int16
// (products of two -32768 included, whose pair sum wraps in int32 as the program's does).
TEST(Codegen, WordDotProducts_Avx2_MatchReference) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2 on this CPU";
  absl::StatusOr<Target> haswell = ParseTarget("llvm -mcpu=haswell");
  ASSERT_TRUE(haswell.ok()) << haswell.status();
  const int m = 3, n = 32, k = 24;
  for (const DataType a_type : {DataType::UInt(8), DataType::Int(8), DataType::Int(16)}) {
    const bool a_words = a_type.bits == 16;
    for (const int lanes : {8, 16}) {
      const std::string what = absl::StrCat(lanes, " lanes, A ", a_type.ToString());
      Tensor A = te::Placeholder({m, k}, a_type, "A");
      Tensor W = te::Placeholder({n / 8, k / 4, 2, 8, 2}, DataType::Int(16), "W16");
      // The pair of input u (o) and its place in the pair (p).
      auto pair = [a_words](int u) { return a_words ? u / 2 : u % 2; };
      auto place = [a_words](int u) { return a_words ? u % 2 : u / 2; };
      DotKernel dk = ScheduleDot(
          A, W, m, n, k, lanes,
          [&](const Var& j, const Var& r, int u) -> std::vector<Expr> {
            return {ir::floordiv(j, 8), r, pair(u), ir::floormod(j, 8), place(u)};
          },
          *haswell);
      ASSERT_FALSE(dk.assembly.empty()) << what;
      const Tensor& C = dk.C;
      const std::string* assembly = &dk.assembly;
      EXPECT_NE(assembly->find("vpmaddwd"), std::string::npos) << what;
      EXPECT_EQ(assembly->find("vpinsrw"), std::string::npos) << what;
      EXPECT_EQ(assembly->find("vpextrw"), std::string::npos) << what;
      if (!a_type.is_int() || a_words) {
        EXPECT_EQ(assembly->find("vpsraw"), std::string::npos) << what;
      }
      if (a_words) {
        EXPECT_EQ(assembly->find("vpsrlw"), std::string::npos) << what;
        EXPECT_EQ(assembly->find("vpand"), std::string::npos) << what;
      }
      std::unique_ptr<JitModule> jit;
      TfKernelFn fn = JitKernel(*dk.sch, {A, W, C}, "dot", &jit, *haswell);
      ASSERT_NE(fn, nullptr);
      auto w = *NDArray::Empty({n / 8, k / 4, 2, 8, 2}, DataType::Int(16));
      for (int i = 0; i < n * k; ++i) {
        w.data<int16_t>()[i] = static_cast<int16_t>(i * 9973 + 7);  // Wraps over all of int16.
      }
      w.data<int16_t>()[0] = w.data<int16_t>()[1] = -32768;
      ExpectDotMatches(
          fn, a_type, m, n, k, w,
          [&](int jj, int kk) {
            const int u = kk % 4;
            return w
                .data<int16_t>()[(((jj / 8 * (k / 4) + kk / 4) * 2 + pair(u)) * 8 + jj % 8) * 2 +
                                 place(u)];
          },
          what);
    }
  }
}

// A target named by its CPU alone (`llvm -mcpu=skylake-avx512`, no -mattr) has an empty feature
// string; its AVX-512 comes from the CPU's name, and the code generator must see it there too:
// a 32-lane reciprocal is two vrcp14ps and a Newton step in zmm registers, not a division.
// Only assembly is made, so any x86 host can build it.
TEST(Codegen, TargetNamedByCpuAlone_HasItsCpusFeatures) {
  absl::StatusOr<Target> skx = ParseTarget("llvm -mcpu=skylake-avx512");
  ASSERT_TRUE(skx.ok()) << skx.status();
  ASSERT_TRUE(skx->features.empty()) << skx->features;
  const int n = 128;
  Tensor A = te::Placeholder({n}, DataType::Float(32), "A");
  Tensor C = *te::Compute(
      {n}, [&](const std::vector<Var>& i) { return ir::recip(A(i[0])); }, "C");
  auto sch = *schedule::Schedule::Create({C});
  auto& c = (*sch)[C];
  auto j = *c.Split(c.axis(0), 32);
  ASSERT_TRUE(c.Vectorize(j.second).ok());
  auto f = lower::Lower(*sch, {A, C}, "recip32");
  ASSERT_TRUE(f.ok()) << f.status();
  auto assembly = BuildAssembly({*f}, *skx);
  ASSERT_TRUE(assembly.ok()) << assembly.status();
  EXPECT_NE(assembly->find("vrcp14ps"), std::string::npos) << *assembly;
  EXPECT_EQ(assembly->find("vdivps"), std::string::npos) << *assembly;
  EXPECT_NE(assembly->find("zmm"), std::string::npos) << *assembly;
}

TEST(Codegen, BadArguments_ReturnErrorCodes) {
  Gemm g = MakeGemm(8, 8, 8);
  auto f = lower::Lower(*g.sch, {g.A, g.B, g.C}, "gemm");
  ASSERT_TRUE(f.ok());
  auto jit = BuildJit({*f}, HostTarget());
  ASSERT_TRUE(jit.ok()) << jit.status();
  TfKernelFn fn = *(*jit)->Lookup("gemm");
  auto a = *NDArray::Empty({8, 8}, DataType::Float(32));
  auto b = *NDArray::Empty({8, 8}, DataType::Float(32));
  auto wrong_shape = *NDArray::Empty({8, 9}, DataType::Float(32));
  auto wrong_dtype = *NDArray::Empty({8, 8}, DataType::Int(32));
  DLTensor* args[3] = {a.dl(), b.dl(), wrong_shape.dl()};
  EXPECT_EQ(fn(args, 2), TF_KERNEL_BAD_ARG_COUNT);
  EXPECT_EQ(fn(args, 3), TF_KERNEL_BAD_SHAPE);
  args[2] = wrong_dtype.dl();
  EXPECT_EQ(fn(args, 3), TF_KERNEL_BAD_DTYPE);
  args[2] = nullptr;
  EXPECT_EQ(fn(args, 3), TF_KERNEL_NULL_ARG);
  EXPECT_EQ((*jit)->Lookup("nope").status().code(), absl::StatusCode::kNotFound);
}

// The short pipeline (opt_pipeline.h) builds kernels that compute the same results as O3's,
// for a vectorized, parallel GEMM and for an unscheduled one.
TEST(Codegen, KernelPipeline_SameResultsAsO3) {
  for (bool scheduled : {false, true}) {
    Gemm g = MakeGemm(33, 48, 20);
    if (scheduled) {
      auto& c = (*g.sch)[g.C];
      auto split = c.Split(c.axis(1), 16);
      ASSERT_TRUE(split.ok());
      ASSERT_TRUE(c.Reorder({split->first, c.reduce_axis(0), split->second}).ok());
      ASSERT_TRUE(c.Vectorize(split->second).ok());
      ASSERT_TRUE(c.Parallel(c.axis(0)).ok());
    }
    auto f = lower::Lower(*g.sch, {g.A, g.B, g.C}, "gemm_short");
    ASSERT_TRUE(f.ok()) << f.status();
    auto jit = BuildJit({*f}, HostTarget(), OptPipeline::kKernel);
    ASSERT_TRUE(jit.ok()) << jit.status();
    auto fn = (*jit)->Lookup("gemm_short");
    ASSERT_TRUE(fn.ok());
    CheckGemm(*fn, 33, 48, 20);
    EXPECT_TRUE(BuildObject({*f}, HostTarget(), OptPipeline::kKernel).ok());
  }
}

// Distinct buffers get distinct alias scopes (LLVMEmitter::AddAliasScopes), so LLVM keeps an
// unscheduled GEMM's C[i, j] in a register across the reduction: the innermost loop, which
// loads A and B, stores nothing. Without the scopes C's store might change A or B, and it stays
// in that loop. Also in a parallel loop's outlined body, which gets its buffers through a
// closure.
TEST(Codegen, AliasScopes_AccumulatorLeavesTheReductionLoop) {
  for (bool parallel : {false, true}) {
    SCOPED_TRACE(parallel ? "parallel" : "serial");
    // K large enough that the reduction stays a loop (not unrolled whole).
    Gemm g = MakeGemm(16, 16, 1000);
    if (parallel) ASSERT_TRUE((*g.sch)[g.C].Parallel((*g.sch)[g.C].axis(0)).ok());
    auto f = lower::Lower(*g.sch, {g.A, g.B, g.C}, "gemm_scoped");
    ASSERT_TRUE(f.ok()) << f.status();
    auto ir = BuildLLVMIR({*f}, HostTarget());
    ASSERT_TRUE(ir.ok()) << ir.status();
    EXPECT_NE(ir->find("!alias.scope"), std::string::npos);
    EXPECT_NE(ir->find("!noalias"), std::string::npos);
    llvm::LLVMContext ctx;
    llvm::SMDiagnostic error;
    std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(*ir, error, ctx);
    ASSERT_NE(m, nullptr) << error.getMessage().str();
    int reduction_loops = 0;
    for (llvm::Function& fn : *m) {
      if (fn.isDeclaration()) continue;
      llvm::DominatorTree dt(fn);
      llvm::LoopInfo loops(dt);
      for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
        if (!loop->isInnermost()) continue;
        bool multiplies = false;
        int stores = 0;
        for (llvm::BasicBlock* block : loop->blocks()) {
          for (llvm::Instruction& inst : *block) {
            multiplies |= inst.getOpcode() == llvm::Instruction::FMul;
            stores += llvm::isa<llvm::StoreInst>(inst);
          }
        }
        if (!multiplies) continue;
        ++reduction_loops;
        EXPECT_EQ(stores, 0) << "a store in the reduction loop of " << fn.getName().str();
      }
    }
    EXPECT_GT(reduction_loops, 0);
    auto jit = BuildJit({*f}, HostTarget());
    ASSERT_TRUE(jit.ok()) << jit.status();
    auto fn = (*jit)->Lookup("gemm_scoped");
    ASSERT_TRUE(fn.ok());
    CheckGemm(*fn, 16, 16, 1000);
  }
}

TEST(Codegen, SharedLibrary_DlopenAndCall_MatchesReference) {
  Gemm g = MakeGemm(32, 48, 16);
  auto& c = (*g.sch)[g.C];
  ASSERT_TRUE(c.Parallel(c.axis(0)).ok());
  auto f = lower::Lower(*g.sch, {g.A, g.B, g.C}, "gemm_so");
  ASSERT_TRUE(f.ok());
  auto so = BuildSharedLibrary({*f}, HostTarget());
  ASSERT_TRUE(so.ok()) << so.status();
  std::string path = ::testing::TempDir() + "/gemm_so.so";
  std::ofstream(path, std::ios::binary) << *so;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto names = reinterpret_cast<TfKernelNamesFn>(dlsym(lib, TF_KERNEL_NAMES_SYMBOL));
  ASSERT_NE(names, nullptr);
  EXPECT_STREQ(names(), "gemm_so");
  // Every library lists its kept workspaces; this one keeps none.
  auto workspaces = reinterpret_cast<TfKernelWorkspacesFn>(dlsym(lib, TF_KERNEL_WORKSPACES_SYMBOL));
  ASSERT_NE(workspaces, nullptr);
  void* block = nullptr;
  int64_t bytes = 0;
  EXPECT_EQ(workspaces(&block, &bytes, 1), 0);
  // The kernel runtime's own symbols (kernel_runtime.h) and the parallel loop, compiled apart
  // (module_split.h), stay inside the library.
  for (const char* hidden : {"tf_check_tensor", "tf_kernel_names_data", "tf_workspace_table",
                             "tf_workspace_count", "gemm_so.par0"}) {
    EXPECT_EQ(dlsym(lib, hidden), nullptr) << hidden;
  }
  auto fn = reinterpret_cast<TfKernelFn>(dlsym(lib, "gemm_so"));
  ASSERT_NE(fn, nullptr);
  CheckGemm(fn, 32, 48, 16);
  dlclose(lib);
}

// A heap temporary (over the stack limit) is kept between calls in its slot: calls from
// several threads at once, repeated, each get a block of their own and correct results, and
// the library unloads (its destructor frees the kept block).
TEST(Codegen, HeapTemporary_KeptBetweenConcurrentCalls) {
  const int n = 256;  // T is 256 KB.
  Tensor X = te::Placeholder({n, n}, DataType::Float(32), "X");
  Tensor T = *te::Compute(
      {n, n}, [&](const std::vector<Var>& i) { return X(i[0], i[1]) * 2.0f; }, "T");
  auto kk = te::ReduceAxis(n, "k");
  Tensor Y = *te::Compute(
      {n}, [&](const std::vector<Var>& i) { return te::Sum(T(i[0], kk->var), {kk}); }, "Y");
  auto sch = *schedule::Schedule::Create({Y});
  auto f = lower::Lower(*sch, {X, Y}, "rowsum2");
  ASSERT_TRUE(f.ok()) << f.status();
  auto so = BuildSharedLibrary({*f}, HostTarget());
  ASSERT_TRUE(so.ok()) << so.status();
  // The destructor that frees the kept block on dlclose is in .fini_array, which the dynamic
  // loader runs; in .dtors (LLVM's default) nothing ran it and the block leaked (LeakSanitizer).
  EXPECT_NE(so->find(std::string(".fini_array", 12)), std::string::npos);
  EXPECT_EQ(so->find(std::string(".dtors", 7)), std::string::npos);
  std::string path = ::testing::TempDir() + "/rowsum2.so";
  std::ofstream(path, std::ios::binary) << *so;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto fn = reinterpret_cast<TfKernelFn>(dlsym(lib, "rowsum2"));
  ASSERT_NE(fn, nullptr);
  // The artifact lists its one workspace (T, 256 KB): no block before the first call, the
  // kept one after it; a capacity of 0 writes nothing and still counts.
  auto workspaces = reinterpret_cast<TfKernelWorkspacesFn>(dlsym(lib, TF_KERNEL_WORKSPACES_SYMBOL));
  ASSERT_NE(workspaces, nullptr);
  void* block = reinterpret_cast<void*>(1);
  int64_t bytes = 0;
  ASSERT_EQ(workspaces(&block, &bytes, 1), 1);
  EXPECT_EQ(block, nullptr);
  EXPECT_EQ(bytes, int64_t{n} * n * 4);
  {
    auto x = *NDArray::Empty({n, n}, DataType::Float(32));
    auto y = *NDArray::Empty({n}, DataType::Float(32));
    ASSERT_TRUE(runtime::Call(fn, {&x, &y}).ok());
  }
  ASSERT_EQ(workspaces(&block, &bytes, 1), 1);
  EXPECT_NE(block, nullptr);
  EXPECT_EQ(workspaces(nullptr, nullptr, 0), 1);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto x = *NDArray::Empty({n, n}, DataType::Float(32));
      auto y = *NDArray::Empty({n}, DataType::Float(32));
      for (int call = 0; call < 20; ++call) {
        x.Fill(static_cast<double>(t + call));
        if (!runtime::Call(fn, {&x, &y}).ok()) ++wrong;
        for (int i = 0; i < n; ++i) {
          if (y.data<float>()[i] != 2.0f * n * static_cast<float>(t + call)) ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(dlclose(lib), 0);
}

TEST(Codegen, CrossTarget_AArch64Object_Emitted) {
  Gemm g = MakeGemm(16, 16, 16);
  auto& c = (*g.sch)[g.C];
  ASSERT_TRUE(c.Vectorize(c.axis(1)).ok());
  auto f = lower::Lower(*g.sch, {g.A, g.B, g.C}, "gemm_arm");
  ASSERT_TRUE(f.ok());
  auto target = ParseTarget("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1");
  ASSERT_TRUE(target.ok()) << target.status();
  auto obj = BuildObject({*f}, *target);
  ASSERT_TRUE(obj.ok()) << obj.status();
  ASSERT_GT(obj->size(), 64u);
  EXPECT_EQ(obj->substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(static_cast<uint8_t>((*obj)[18]), 183);  // e_machine = EM_AARCH64
  // With Debian's aarch64 cross toolchain (deploy/setup.sh --tests installs it) it also links.
  auto so = BuildSharedLibrary({*f}, *target);
  ASSERT_TRUE(so.ok()) << so.status();
  EXPECT_EQ(static_cast<uint8_t>((*so)[18]), 183);
  EXPECT_EQ(static_cast<uint8_t>((*so)[16]), 3);  // e_type = ET_DYN
  // An architecture no Debian toolchain here links for is refused before compiling.
  auto riscv = ParseTarget("llvm -mtriple=riscv64-unknown-linux-gnu");
  ASSERT_TRUE(riscv.ok()) << riscv.status();
  EXPECT_EQ(BuildSharedLibrary({*f}, *riscv).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Target, Parse_ValidAndInvalid) {
  EXPECT_TRUE(ParseTarget("llvm -mcpu=znver4").ok());
  EXPECT_EQ(ParseTarget("llvm -mcpu=pentium9000").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseTarget("opencl").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseTarget("llvm -O3").status().code(), absl::StatusCode::kInvalidArgument);
  auto cuda = ParseTarget("cuda -arch=sm_90");
  ASSERT_TRUE(cuda.ok());
  EXPECT_EQ(cuda->arch, "sm_90");
}

// The host's target string read back (from a tuning log) is this machine with all its
// features, which its CPU name alone may understate (a VM's model name), and prints the same.
TEST(Target, HostStringReadBack_KeepsHostFeatures) {
  const Target host = HostTarget();
  auto back = ParseTarget(host.str);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->str, host.str);
  EXPECT_EQ(back->features, host.features);
  EXPECT_EQ(back->MachineKey(), host.MachineKey());
  // Another CPU by name gets that CPU's features, not the host's.
  auto other = ParseTarget(host.cpu == "znver4" ? "llvm -mcpu=skylake" : "llvm -mcpu=znver4");
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->features.empty());
}

}  // namespace
}  // namespace tunefarm::codegen
