#include "bench/library_baselines.h"

#include <cblas.h>

#include <memory>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "bench/openblas_env.h"
#include "common/machine_peak.h"

namespace tunefarm::bench {
namespace {

// Operands of cblas_sgemm, filled with small values.
struct BlasOperands {
  std::vector<float> a, w, c;
};

// The oneDNN primitive built by `make`, or nothing where oneDNN refuses the operation. With
// `exact` (an int8 kernel), its results are checked against the exact ones first: a kernel that
// computes something else is marked not comparable, with how far it is.
void AddOneDnn(std::vector<Baseline>* out, const std::string& what,
               const std::function<OneDnnPtr()>& make, const Int8Reference& exact = nullptr) {
  try {
    OneDnnPtr run = make();
    out->push_back({"oneDNN", absl::StrCat(what, " ", run->Impl()), [run] { run->Run(); }});
    if (!exact) return;
    const Int8Mismatch m = CheckInt8(*run, exact);
    if (m.differing == 0) return;
    out->back().comparable = false;
    out->back().inexact = true;
    absl::StrAppend(&out->back().impl, " (inexact: ", m.differing, " of ", m.checked,
                    " outputs checked differ from the exact result, by up to ", m.max_abs, ")");
  } catch (const dnnl::error&) {
    // Not offered for this shape and type (e.g. Winograd for a 1×1 convolution).
  }
}

// Where the library has no exact int8 kernel for the operation on this core (no VNNI: its
// kernels saturate or halve the weights), its inexact kernels are the baseline after all,
// labelled so: a kernel that computes less cannot make ours look better than it is.
void InexactWhereNoneIsExact(std::vector<Baseline>* out) {
  const bool any_exact = absl::c_any_of(*out, [](const Baseline& b) { return b.comparable; });
  if (any_exact) return;
  for (Baseline& b : *out) {
    if (b.inexact) b.comparable = true;
  }
}

}  // namespace

std::vector<Baseline> GemmBaselines(int64_t batch, int64_t m, int64_t n, int64_t k,
                                    OneDnnTypes types, int threads) {
  std::vector<Baseline> out;
  if (types == OneDnnTypes::kF32) {
    auto ops = std::make_shared<BlasOperands>();
    ops->a.assign(batch * m * k, 0.01f);
    ops->w.assign(batch * n * k, 0.02f);
    ops->c.assign(batch * m * n, 0.0f);
    const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
    // Once, here: a call inside the timed one would be timed with it.
    openblas_set_num_threads(threads);
    if (m == 1) {  // A matrix-vector product: OpenBLAS's sgemv, not sgemm with one row.
      out.push_back({"OpenBLAS", absl::StrCat("sgemv ", OpenBlasCoreName()), [=] {
                       for (int64_t b = 0; b < batch; ++b) {
                         cblas_sgemv(CblasRowMajor, CblasNoTrans, in, ik, 1.0f,
                                     ops->w.data() + b * n * k, ik, ops->a.data() + b * k, 1, 0.0f,
                                     ops->c.data() + b * n, 1);
                       }
                     }});
    } else {
      out.push_back({"OpenBLAS", absl::StrCat("sgemm ", OpenBlasCoreName()), [=] {
                       for (int64_t b = 0; b < batch; ++b) {
                         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, im, in, ik, 1.0f,
                                     ops->a.data() + b * m * k, ik, ops->w.data() + b * n * k, ik,
                                     0.0f, ops->c.data() + b * m * n, in);
                       }
                     }});
    }
  }
  const bool int8 = types == OneDnnTypes::kU8S8S32;
  if (batch == 1) {  // A dense layer: W is a constant weight.
    AddOneDnn(
        &out, "matmul", [&] { return OneDnnMatmul(batch, m, n, k, types); },
        int8 ? MatmulReference(n, k) : nullptr);
    AddOneDnn(
        &out, "inner product", [&] { return OneDnnInnerProduct(m, n, k, types); },
        int8 ? InnerProductReference(n, k) : nullptr);
    if (int8) InexactWhereNoneIsExact(&out);
  } else {  // A batched matmul: W is an activation, oneDNN's two ways of taking it in the call.
    AddOneDnn(&out, "matmul, W as written",
              [&] { return OneDnnMatmul(batch, m, n, k, types, MatmulWeight::kActivationAsIs); });
    AddOneDnn(&out, "reorder W + matmul", [&] {
      return OneDnnMatmul(batch, m, n, k, types, MatmulWeight::kActivationReordered);
    });
    // Timed and printed with its own ratio, not the baseline: W laid out before the call.
    const size_t before = out.size();
    AddOneDnn(&out, "matmul", [&] { return OneDnnMatmul(batch, m, n, k, types); });
    if (out.size() > before) {
      out.back().comparable = false;
      absl::StrAppend(&out.back().impl, " (W laid out by oneDNN before the call, as a constant)");
    }
  }
  return out;
}

std::vector<Baseline> ConvBaselines(const OneDnnConvShape& shape, OneDnnTypes types) {
  std::vector<Baseline> out;
  // int8 (never depthwise here): every kernel checked against the exact convolution.
  const Int8Reference exact =
      types == OneDnnTypes::kU8S8S32 && !shape.depthwise ? ConvReference(shape) : nullptr;
  AddOneDnn(
      &out, "direct", [&] { return OneDnnConv(shape, types, dnnl::algorithm::convolution_direct); },
      exact);
  AddOneDnn(
      &out, "winograd",
      [&] { return OneDnnConv(shape, types, dnnl::algorithm::convolution_winograd); }, exact);
  if (exact) InexactWhereNoneIsExact(&out);
  return out;
}

SideBySide TimeAgainst(const std::function<void()>& ours, const std::vector<Baseline>& baselines,
                       int repeats, int rounds, double min_seconds) {
  SideBySide r;
  std::vector<std::function<void()>> fns = {ours};
  for (const Baseline& b : baselines) fns.push_back(b.run);
  const InTurn t = TimeInTurn(fns, repeats, rounds, min_seconds, FmaProbeGflops);
  r.ours_s = t.seconds[0];
  r.rounds = t.rounds;
  r.wall_seconds = t.wall_seconds;
  for (size_t i = 0; i < baselines.size(); ++i) {
    r.baseline_s.push_back(t.seconds[i + 1]);
    r.ratio.push_back(t.over_first[i + 1]);
    int& best = baselines[i].comparable ? r.fastest : r.fastest_other;
    if (best < 0 || r.ratio[i] < r.ratio[best]) best = static_cast<int>(i);
  }
  if (r.fastest_other >= 0 && r.fastest >= 0 && r.ratio[r.fastest_other] >= r.ratio[r.fastest]) {
    r.fastest_other = -1;
  }
  if (r.fastest >= 0) {
    r.state = SplitByState(t, r.fastest + 1);
    r.fastest_interval = t.over_first_interval[r.fastest + 1];
  }
  return r;
}

}  // namespace tunefarm::bench
