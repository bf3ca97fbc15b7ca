// End to end for the tensor-expression language, in the Halide manner: each program is parsed,
// elaborated, scheduled (plainly, then at random), lowered, JIT-compiled for the host, run and
// compared with a plain C++ reference loop. The first six are the hand-built programs of
// programs.h written as text (so the language must build what te:: builds by hand); the rest
// are the operators that have no template.
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "compiler/codegen/build.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/lang/elaborate.h"
#include "compiler/lang/parser.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/tests/programs.h"
#include "compiler/tests/random_schedule.h"
#include "gtest/gtest.h"

namespace tunefarm::testing {
namespace {

using runtime::NDArray;
using Reference = std::function<void(const std::vector<NDArray*>&, const std::vector<NDArray*>&)>;

constexpr int kRandomSchedules = 8;

// Row-major flat index of `idx` in `a`.
int64_t At(const NDArray& a, std::initializer_list<int64_t> idx) {
  int64_t flat = 0;
  size_t d = 0;
  for (int64_t i : idx) flat = flat * a.shape()[d++] + i;
  return flat;
}

struct Case {
  std::string name;
  std::string text;
  lang::ShapeBindings shapes;
  Reference reference;
  double rtol = 1e-4;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  // The hand-built programs, written as text; their references come from programs.h.
  cases.push_back({"matmul",
                   "A = input(float32, [M, K]); B = input(float32, [K, N])\n"
                   "C[i, j] = sum(k: A[i, k] * B[k, j])\n",
                   {{"M", 33}, {"N", 40}, {"K", 27}},
                   Matmul(33, 40, 27).reference});
  cases.push_back({"batch_matmul",
                   "A = input(float32, [Bt, M, K]); B = input(float32, [Bt, K, N])\n"
                   "C[b, i, j] = sum(k: A[b, i, k] * B[b, k, j])\n",
                   {{"Bt", 3}, {"M", 17}, {"N", 24}, {"K", 13}},
                   BatchMatmul(3, 17, 24, 13).reference});
  cases.push_back({"conv2d_nchw",
                   "X = input(float32, [1, C, S, S]); W = input(float32, [F, C, 3, 3])\n"
                   "P[n, c, h < S + 2, w < S + 2] = "
                   "select(h >= 1 && h <= S && w >= 1 && w <= S, X[n, c, h - 1, w - 1], 0.0)\n"
                   "Y[n, f, y < (S - 1) / 2 + 1, x < (S - 1) / 2 + 1] = "
                   "sum(c, ry < 3, rx < 3: P[n, c, y * 2 + ry, x * 2 + rx] * W[f, c, ry, rx])\n",
                   {{"C", 4}, {"F", 6}, {"S", 11}},
                   Conv2dNchw(4, 6, 11, 2).reference});
  cases.push_back({"depthwise_conv2d",
                   "X = input(float32, [1, C, S, S]); W = input(float32, [C, 1, 3, 3])\n"
                   "P[n, c, h < S + 2, w < S + 2] = "
                   "select(h >= 1 && h <= S && w >= 1 && w <= S, X[n, c, h - 1, w - 1], 0.0)\n"
                   "Y[n, c, h < S, w < S] = sum(ry < 3, rx < 3: P[n, c, h + ry, w + rx] * "
                   "W[c, 0, ry, rx])\n",
                   {{"C", 5}, {"S", 12}},
                   DepthwiseConv2d(5, 12).reference});
  cases.push_back({"softmax",
                   "X = input(float32, [R, N])\n"
                   "M[i] = max(j: X[i, j])\n"
                   "E[i, j] = exp(X[i, j] - M[i])\n"
                   "S[i] = sum(j: E[i, j])\n"
                   "Y[i, j] = E[i, j] / S[i]\n",
                   {{"R", 13}, {"N", 37}},
                   Softmax(13, 37).reference});
  cases.push_back({"broadcast_elementwise",
                   "A = input(float32, [Bt, M, N]); s = input(float32, [N]); "
                   "t = input(float32, [M, 1])\n"
                   "Z[b, i, j] = A[b, i, j] * s[j] + t[i, 0]\n"
                   "Y[b, i, j] = max(Z[b, i, j], 0.0)\n",
                   {{"Bt", 3}, {"M", 10}, {"N", 24}},
                   BroadcastElementwise(3, 10, 24).reference});

  // Operators with no template, each with its own reference.
  cases.push_back({"layer_norm",
                   "X = input(float32, [N, D]); g = input(float32, [D]); b = input(float32, [D])\n"
                   "S[i] = sum(j: X[i, j])\n"
                   "Mu[i] = S[i] / D\n"
                   "Q[i] = sum(j: (X[i, j] - Mu[i]) * (X[i, j] - Mu[i]))\n"
                   "R[i] = 1.0 / sqrt(Q[i] / D + 1e-5)\n"
                   "Y[i, j] = (X[i, j] - Mu[i]) * R[i] * g[j] + b[j]\n",
                   {{"N", 7}, {"D", 50}},
                   [](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
                     const int64_t n = in[0]->shape()[0], d = in[0]->shape()[1];
                     for (int64_t i = 0; i < n; ++i) {
                       double mu = 0, var = 0;
                       for (int64_t j = 0; j < d; ++j) mu += in[0]->Get(At(*in[0], {i, j}));
                       mu /= d;
                       for (int64_t j = 0; j < d; ++j) {
                         const double x = in[0]->Get(At(*in[0], {i, j})) - mu;
                         var += x * x;
                       }
                       const double r = 1.0 / std::sqrt(var / d + 1e-5);
                       for (int64_t j = 0; j < d; ++j) {
                         out[0]->Set(At(*out[0], {i, j}),
                                     (in[0]->Get(At(*in[0], {i, j})) - mu) * r * in[1]->Get(j) +
                                         in[2]->Get(j));
                       }
                     }
                   }});
  cases.push_back(
      {"max_pool_3x3_s2",
       "X = input(float32, [N, C, H, W])\n"
       "Y[n, c, h < (H - 3) / 2 + 1, w < (W - 3) / 2 + 1] = "
       "max(r < 3, s < 3: X[n, c, h * 2 + r, w * 2 + s])\n",
       {{"N", 1}, {"C", 3}, {"H", 13}, {"W", 10}},
       [](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
         const auto& o = out[0]->shape();
         for (int64_t c = 0; c < o[1]; ++c) {
           for (int64_t h = 0; h < o[2]; ++h) {
             for (int64_t w = 0; w < o[3]; ++w) {
               double m = -INFINITY;
               for (int r = 0; r < 3; ++r) {
                 for (int s = 0; s < 3; ++s) {
                   m = std::max(m, in[0]->Get(At(*in[0], {0, c, h * 2 + r, w * 2 + s})));
                 }
               }
               out[0]->Set(At(*out[0], {0, c, h, w}), m);
             }
           }
         }
       }});
  cases.push_back({"global_avg_pool",
                   "X = input(float32, [N, C, H, W])\n"
                   "S[n, c] = sum(h, w: X[n, c, h, w])\n"
                   "Y[n, c] = S[n, c] / (H * W)\n",
                   {{"N", 2}, {"C", 5}, {"H", 7}, {"W", 6}},
                   [](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
                     const auto& s = in[0]->shape();
                     for (int64_t n = 0; n < s[0]; ++n) {
                       for (int64_t c = 0; c < s[1]; ++c) {
                         double sum = 0;
                         for (int64_t h = 0; h < s[2]; ++h) {
                           for (int64_t w = 0; w < s[3]; ++w) {
                             sum += in[0]->Get(At(*in[0], {n, c, h, w}));
                           }
                         }
                         out[0]->Set(At(*out[0], {n, c}), sum / (s[2] * s[3]));
                       }
                     }
                   }});
  cases.push_back(
      {"dense_bias_gelu",
       "A = input(float32, [M, K]); W = input(float32, [N, K]); b = input(float32, [N])\n"
       "C[i, j] = sum(k: A[i, k] * W[j, k])\n"
       "Y[i, j] = gelu(C[i, j] + b[j])\n",
       {{"M", 9}, {"N", 20}, {"K", 31}},
       [](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
         const int64_t m = in[0]->shape()[0], k = in[0]->shape()[1], n = in[1]->shape()[0];
         for (int64_t i = 0; i < m; ++i) {
           for (int64_t j = 0; j < n; ++j) {
             double s = in[2]->Get(j);
             for (int64_t x = 0; x < k; ++x) {
               s += in[0]->Get(At(*in[0], {i, x})) * in[1]->Get(At(*in[1], {j, x}));
             }
             out[0]->Set(At(*out[0], {i, j}), 0.5 * s * (1 + std::erf(s / std::sqrt(2.0))));
           }
         }
       },
       1e-3});
  cases.push_back(
      {"conv2d_bias_relu",
       "X = input(float32, [1, C, S, S]); W = input(float32, [F, C, 3, 3]); "
       "b = input(float32, [F])\n"
       "P[n, c, h < S + 2, w < S + 2] = "
       "select(h >= 1 && h <= S && w >= 1 && w <= S, X[n, c, h - 1, w - 1], 0.0)\n"
       "Y[n, f, y < S, x < S] = sum(c, ry < 3, rx < 3: P[n, c, y + ry, x + rx] * W[f, c, ry, rx])\n"
       "Z[n, f, y, x] = max(Y[n, f, y, x] + b[f], 0.0)\n",
       {{"C", 3}, {"F", 4}, {"S", 9}},
       [](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
         const int64_t c_in = in[0]->shape()[1], s = in[0]->shape()[2], f_out = in[1]->shape()[0];
         for (int64_t f = 0; f < f_out; ++f) {
           for (int64_t y = 0; y < s; ++y) {
             for (int64_t x = 0; x < s; ++x) {
               double acc = in[2]->Get(f);
               for (int64_t c = 0; c < c_in; ++c) {
                 for (int64_t ry = 0; ry < 3; ++ry) {
                   for (int64_t rx = 0; rx < 3; ++rx) {
                     const int64_t h = y + ry - 1, w = x + rx - 1;
                     if (h < 0 || h >= s || w < 0 || w >= s) continue;
                     acc += in[0]->Get(At(*in[0], {0, c, h, w})) *
                            in[1]->Get(At(*in[1], {f, c, ry, rx}));
                   }
                 }
               }
               out[0]->Set(At(*out[0], {0, f, y, x}), std::max(acc, 0.0));
             }
           }
         }
       }});
  cases.push_back(
      {"attention_softmax",
       "Q = input(float32, [Hd, L, D]); K = input(float32, [Hd, L, D])\n"
       "S[h, i, j] = sum(d: Q[h, i, d] * K[h, j, d])\n"
       "M[h, i] = max(j: S[h, i, j])\n"
       "E[h, i, j] = exp((S[h, i, j] - M[h, i]) / sqrt(float32(D)))\n"
       "Z[h, i] = sum(j: E[h, i, j])\n"
       "Y[h, i, j] = E[h, i, j] / Z[h, i]\n",
       {{"Hd", 3}, {"L", 11}, {"D", 16}},
       [](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
         const int64_t hd = in[0]->shape()[0], l = in[0]->shape()[1], d = in[0]->shape()[2];
         for (int64_t h = 0; h < hd; ++h) {
           for (int64_t i = 0; i < l; ++i) {
             std::vector<double> s(l);
             double m = -INFINITY, z = 0;
             for (int64_t j = 0; j < l; ++j) {
               for (int64_t x = 0; x < d; ++x) {
                 s[j] += in[0]->Get(At(*in[0], {h, i, x})) * in[1]->Get(At(*in[1], {h, j, x}));
               }
               m = std::max(m, s[j]);
             }
             for (int64_t j = 0; j < l; ++j) z += std::exp((s[j] - m) / std::sqrt(d * 1.0));
             for (int64_t j = 0; j < l; ++j) {
               out[0]->Set(At(*out[0], {h, i, j}), std::exp((s[j] - m) / std::sqrt(d * 1.0)) / z);
             }
           }
         }
       }});
  cases.push_back(
      {"stencil_5pt",
       "X = input(float32, [H, W])\n"
       "Y[i, j] = select(i > 0 && i < H - 1 && j > 0 && j < W - 1, "
       "X[i - 1, j] + X[i + 1, j] + X[i, j - 1] + X[i, j + 1] - 4 * X[i, j], X[i, j])\n",
       {{"H", 17}, {"W", 23}},
       [](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
         const int64_t h = in[0]->shape()[0], w = in[0]->shape()[1];
         auto x = [&](int64_t i, int64_t j) { return in[0]->Get(At(*in[0], {i, j})); };
         for (int64_t i = 0; i < h; ++i) {
           for (int64_t j = 0; j < w; ++j) {
             const bool inside = i > 0 && i < h - 1 && j > 0 && j < w - 1;
             out[0]->Set(At(*out[0], {i, j}), inside ? x(i - 1, j) + x(i + 1, j) + x(i, j - 1) +
                                                           x(i, j + 1) - 4 * x(i, j)
                                                     : x(i, j));
           }
         }
       }});
  cases.push_back({"int8_gemm_int32",
                   "A = input(int8, [M, K]); B = input(int8, [N, K])\n"
                   "C[i, j] = sum(k: int32(A[i, k]) * int32(B[j, k]))\n",
                   {{"M", 5}, {"N", 19}, {"K", 70}},
                   [](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
                     const int64_t m = in[0]->shape()[0], k = in[0]->shape()[1];
                     const int64_t n = in[1]->shape()[0];
                     for (int64_t i = 0; i < m; ++i) {
                       for (int64_t j = 0; j < n; ++j) {
                         double s = 0;
                         for (int64_t x = 0; x < k; ++x) {
                           s += in[0]->Get(At(*in[0], {i, x})) * in[1]->Get(At(*in[1], {j, x}));
                         }
                         out[0]->Set(At(*out[0], {i, j}), s);
                       }
                     }
                   },
                   0});
  return cases;
}

// Runs one schedule of `c` (seed 0: the plain schedule); empty on success, else a report.
std::string CheckOne(const Case& c, const lang::ElaboratedProgram& e, uint64_t seed) {
  auto sch = schedule::Schedule::Create({e.output()});
  if (!sch.ok()) return sch.status().ToString();
  RandomScheduler gen(seed);
  lower::LowerOptions opts;
  if (seed != 0) {
    if (absl::Status s = gen.Run(sch->get()); !s.ok()) return s.ToString();
    opts = gen.RandomLowerOptions();
  }
  auto report = [&](const std::string& what) {
    return absl::StrCat(c.name, " seed ", seed, ": ", what, "\nschedule:\n", gen.Log());
  };
  auto f = lower::Lower(**sch, e.args(), "kernel", opts);
  if (!f.ok()) {
    if (f.status().code() == absl::StatusCode::kFailedPrecondition &&
        absl::StrContains(f.status().message(), "compute_at:")) {
      return "";  // A clean rejection of a random compute_at, as in schedule_property_test.
    }
    return report("lower: " + f.status().ToString());
  }
  auto jit = codegen::BuildJit({*f}, codegen::HostTarget());
  if (!jit.ok()) return report("build: " + jit.status().ToString());
  auto fn = (*jit)->Lookup("kernel");
  if (!fn.ok()) return report("lookup: " + fn.status().ToString());

  std::vector<NDArray> args;
  for (const te::Tensor& t : e.args()) {
    std::vector<int64_t> shape;
    for (const ir::Expr& d : t.shape()) shape.push_back(*ir::AsConstInt(d));
    args.push_back(*NDArray::Empty(shape, t.dtype()));
  }
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i].dtype().is_float()) {
      args[i].FillRandom(1000 * seed + i);
    } else {
      args[i].FillRandom(1000 * seed + i, -128, 128);
    }
  }
  args.back().Fill(NAN);
  NDArray ref = *NDArray::Empty(args.back().shape(), args.back().dtype());
  std::vector<NDArray*> in, ptrs;
  for (size_t i = 0; i + 1 < args.size(); ++i) in.push_back(&args[i]);
  c.reference(in, {&ref});
  for (NDArray& a : args) ptrs.push_back(&a);
  if (absl::Status s = runtime::Call(*fn, ptrs); !s.ok()) return report("call: " + s.ToString());
  const double err = runtime::MaxRelError(args.back(), ref, c.rtol, c.rtol);
  if (!(err <= 1.0)) {
    return report(
        absl::StrCat("differs from the reference (error ", err, ")\n", ir::ToString(f->body)));
  }
  return "";
}

class LangProgramTest : public ::testing::TestWithParam<int> {};

TEST_P(LangProgramTest, PlainAndRandomSchedules_MatchReference) {
  const Case c = Cases()[GetParam()];
  absl::StatusOr<lang::Program> parsed = lang::ParseProgram(c.text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<lang::ElaboratedProgram> e = lang::Elaborate(*parsed, c.shapes);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_GT(e->flop, 0);
  for (uint64_t seed = 0; seed <= kRandomSchedules; ++seed) {
    const std::string failure = CheckOne(c, *e, seed);
    EXPECT_EQ(failure, "");
  }
}

INSTANTIATE_TEST_SUITE_P(AllCases, LangProgramTest,
                         ::testing::Range(0, static_cast<int>(Cases().size())),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return Cases()[info.param].name;
                         });

}  // namespace
}  // namespace tunefarm::testing
