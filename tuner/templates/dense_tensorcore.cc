// dense_tensorcore: C[M, N] (float32) = A[M, K] · W[N, K]ᵀ with float16 A and W on NVIDIA
// tensor cores through WMMA (16×16×16 tiles; TVM's dense_tensorcore.cuda); and
// batch_matmul_tensorcore, the same per batch (C[B, M, N], batches on blockIdx.z). M, N and K
// must be multiples of 16, and the target a cuda one.
//
// Each block computes a (warps_m · tiles_m · 16) × (warps_n · tiles_n · 16) tile of C; its
// warps sit on threadIdx.y/.z and each accumulates tiles_m × tiles_n 16×16 tiles in
// "wmma.accumulator" fragments. The reduction is staged through shared memory 16 · chunk
// columns at a time (rows padded by 8 halves against bank conflicts when `skew` is on),
// filled by all threads with vector loads; each step loads A and W fragments from shared
// memory and issues the mma; the accumulators are stored straight to C.
// Knobs: tile_m, tile_n = [blocks, warps, tiles per warp] in units of 16 rows/columns;
// tile_k = [steps, chunk]; skew; vector.
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/gemm_common.h"
#include "tuner/templates/gpu_common.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

using ir::Expr;
using ir::Var;
using schedule::TensorIntrinsic;
using te::Tensor;

constexpr int64_t kTile = 16;

class TensorCoreGemmTemplate : public Template {
 public:
  explicit TensorCoreGemmTemplate(bool batched) : batched_(batched) {}
  std::string name() const override {
    return batched_ ? "batch_matmul_tensorcore" : "dense_tensorcore";
  }
  std::string args_doc() const override { return batched_ ? "B,M,N,K" : "M,N,K"; }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& args,
                                        ir::DataType dtype) const override {
    if (absl::Status s = CheckArgs(name(), args, args_doc()); !s.ok()) return s;
    if (absl::Status s = CheckDtype(name(), dtype, {ir::DataType::Float(16)}); !s.ok()) return s;
    for (size_t i = batched_ ? 1 : 0; i < args.size(); ++i) {
      if (args[i] % kTile != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(name(), ": M, N and K must be multiples of 16 (tensor-core tiles); use ",
                         batched_ ? "batch_matmul" : "dense"));
      }
    }
    double flop = 2.0;
    for (int64_t a : args) flop *= static_cast<double>(a);
    return Workload{name(), args, dtype, flop};
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    if (target.kind != codegen::Target::Kind::kCUDA) {
      return absl::InvalidArgumentError(
          absl::StrCat(name(), " needs a cuda target (tensor cores), not '", target.str, "'"));
    }
    const int off = batched_ ? 1 : 0;
    space->DefineSplit("tile_m", w.args[off] / kTile, 3, SplitPolicy::kFactors, 4);
    space->DefineSplit("tile_n", w.args[off + 1] / kTile, 3, SplitPolicy::kFactors, 4);
    space->DefineSplit("tile_k", w.args[off + 2] / kTile, 2, SplitPolicy::kFactors, 4);
    space->DefineOther("skew", {0, 1});
    space->DefineOther("vector", {4, 8});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    const int off = batched_ ? 1 : 0;
    const int64_t batch = batched_ ? w.args[0] : 0;
    const int64_t m = w.args[off], n = w.args[off + 1], k = w.args[off + 2];
    // The reference: the plain GEMM program (float16 widened, float32 accumulation).
    if (config == nullptr) return InstantiateGemm(name(), batch, m, n, k, w.dtype, nullptr);
    const std::string tmpl = name();
    const GemmOperands g = MakeGemmOperands(batch, m, n, k, w.dtype);
    const Tensor& a = g.a;
    const Tensor& wt = g.w;
    TF_TEMPLATE_ASSIGN_OR_RETURN(c, PlainGemm(g, m, n), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({a, wt, c}), tmpl);
    schedule::Schedule& s = *inst.sch;
    TF_TEMPLATE_ASSIGN_OR_RETURN(tm, config->Split("tile_m"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tn, config->Split("tile_n"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tk, config->Split("tile_k"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(vector, config->Other("vector"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(skew, config->Other("skew"), tmpl);
    const int64_t chunk = tk[1];

    TF_TEMPLATE_ASSIGN_OR_RETURN(acc, s.CacheWrite(c, "wmma.accumulator"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(as, s.CacheRead(a, "shared", {acc}), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ws, s.CacheRead(wt, "shared", {acc}), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(af, s.CacheRead(as, "wmma.matrix_a", {acc}), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(wf, s.CacheRead(ws, "wmma.matrix_b", {acc}), tmpl);

    // C: blocks, warps, tiles; each 16x16 tile stored from its accumulator.
    TF_TEMPLATE_STAGE(cs, s, c, tmpl);
    auto tile3 = [&](const te::IterVar& axis,
                     const std::vector<int64_t>& f) -> absl::StatusOr<std::array<te::IterVar, 4>> {
      TF_TEMPLATE_ASSIGN_OR_RETURN(b, cs.Split(axis, f[1] * f[2] * kTile), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(wp, cs.Split(b.second, f[2] * kTile), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(t, cs.Split(wp.second, kTile), tmpl);
      return std::array<te::IterVar, 4>{b.first, wp.first, t.first, t.second};
    };
    auto my = tile3(cs.axis(off), tm);
    if (!my.ok()) return my.status();
    auto nx = tile3(cs.axis(off + 1), tn);
    if (!nx.ok()) return nx.status();
    auto [mb, mw, mt, mi] = *my;
    auto [nb, nw, nt, ni] = *nx;
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Reorder({mb, nb, mw, nw, mt, nt, mi, ni}), tmpl);
    if (batched_) TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(cs.axis(0), "blockIdx.z"), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(mb, "blockIdx.y"), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(nb, "blockIdx.x"), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(mw, "threadIdx.y"), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(nw, "threadIdx.z"), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Unroll(mt), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Unroll(nt), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Tensorize(mi, TensorIntrinsic::kWmmaStore), tmpl);

    // The accumulators of one warp: k staged by chunks, then 16 at a time.
    TF_TEMPLATE_STAGE(ls, s, acc, tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ls.ComputeAt(cs, nw), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(lm, ls.Split(ls.axis(off), kTile), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ln, ls.Split(ls.axis(off + 1), kTile), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ko, ls.Split(ls.reduce_axis(0), chunk * kTile), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(kt, ls.Split(ko.second, kTile), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(
        ls.Reorder({ko.first, kt.first, lm.first, ln.first, lm.second, ln.second, kt.second}),
        tmpl);
    for (const te::IterVar& iv : {kt.first, lm.first, ln.first}) {
      TF_TEMPLATE_RETURN_IF_ERROR(ls.Unroll(iv), tmpl);
    }
    TF_TEMPLATE_RETURN_IF_ERROR(ls.Tensorize(lm.second, TensorIntrinsic::kWmmaMma), tmpl);

    // Fragments of A and W for one 16-wide step of k.
    for (const auto& [frag, op] :
         {std::pair{af, TensorIntrinsic::kWmmaLoadA}, std::pair{wf, TensorIntrinsic::kWmmaLoadB}}) {
      TF_TEMPLATE_STAGE(fs, s, frag, tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(fs.ComputeAt(ls, kt.first), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(rows, fs.Split(fs.axis(off), kTile), tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(fs.Unroll(rows.first), tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(fs.Tensorize(rows.second, op), tmpl);
    }

    // Shared tiles of A and W for one chunk, filled by every thread of the block.
    const int64_t lanes = FillLanes(vector, w.dtype, chunk * kTile);
    for (const Tensor& shared : {as, ws}) {
      TF_TEMPLATE_STAGE(ss, s, shared, tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(ss.ComputeAt(ls, ko.first), tmpl);
      if (skew != 0) {
        TF_TEMPLATE_RETURN_IF_ERROR(ss.SetStorageAlign(off, chunk * kTile, 8), tmpl);
      }
      TF_TEMPLATE_RETURN_IF_ERROR(CooperativeFetch(tmpl, ss, {tn[1], tm[1], 32}, lanes), tmpl);
    }
    return inst;
  }

 private:
  const bool batched_;
};

class DenseTensorCoreTemplate : public TensorCoreGemmTemplate {
 public:
  DenseTensorCoreTemplate() : TensorCoreGemmTemplate(false) {}
};

class BatchMatmulTensorCoreTemplate : public TensorCoreGemmTemplate {
 public:
  BatchMatmulTensorCoreTemplate() : TensorCoreGemmTemplate(true) {}
};

TF_REGISTER_TEMPLATE(DenseTensorCoreTemplate);
TF_REGISTER_TEMPLATE(BatchMatmulTensorCoreTemplate);

}  // namespace
}  // namespace tunefarm::tuner
