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
    auto i32 = [](int64_t v) { return Expr(static_cast<int>(v)); };
    auto shape = [&](std::vector<Expr> dims) {
      if (batched_) dims.insert(dims.begin(), i32(batch));
      return dims;
    };
    auto at = [&](const std::vector<Var>& i, Expr row, Expr col) {
      std::vector<Expr> idx;
      if (batched_) idx.push_back(i[0]);
      idx.push_back(std::move(row));
      idx.push_back(std::move(col));
      return idx;
    };
    Tensor a = te::Placeholder(shape({i32(m), i32(k)}), w.dtype, "A");
    Tensor wt = te::Placeholder(shape({i32(n), i32(k)}), w.dtype, "W");
    te::IterVar kk = te::ReduceAxis(i32(k), "k");
    Tensor c = te::Compute(
        shape({i32(m), i32(n)}),
        [&](const std::vector<Var>& i) {
          return te::Sum(Widen(a(at(i, i[off], kk->var))) * Widen(wt(at(i, i[off + 1], kk->var))),
                         {kk});
        },
        "C");
    TF_ASSIGN_OR_RETURN_SCHED(inst, MakeInstance({a, wt, c}), tmpl);
    schedule::Schedule& s = *inst.sch;
    const std::vector<int64_t> tm = config->Split("tile_m");
    const std::vector<int64_t> tn = config->Split("tile_n");
    const int64_t chunk = config->Split("tile_k")[1];

    TF_ASSIGN_OR_RETURN_SCHED(acc, s.CacheWrite(c, "wmma.accumulator"), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(as, s.CacheRead(a, "shared", {acc}), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(ws, s.CacheRead(wt, "shared", {acc}), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(af, s.CacheRead(as, "wmma.matrix_a", {acc}), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(wf, s.CacheRead(ws, "wmma.matrix_b", {acc}), tmpl);

    // C: blocks, warps, tiles; each 16x16 tile stored from its accumulator.
    schedule::Stage& cs = s[c];
    auto tile3 = [&](const te::IterVar& axis,
                     const std::vector<int64_t>& f) -> absl::StatusOr<std::array<te::IterVar, 4>> {
      TF_ASSIGN_OR_RETURN_SCHED(b, cs.Split(axis, f[1] * f[2] * kTile), tmpl);
      TF_ASSIGN_OR_RETURN_SCHED(wp, cs.Split(b.second, f[2] * kTile), tmpl);
      TF_ASSIGN_OR_RETURN_SCHED(t, cs.Split(wp.second, kTile), tmpl);
      return std::array<te::IterVar, 4>{b.first, wp.first, t.first, t.second};
    };
    auto my = tile3(cs.axis(off), tm);
    if (!my.ok()) return my.status();
    auto nx = tile3(cs.axis(off + 1), tn);
    if (!nx.ok()) return nx.status();
    auto [mb, mw, mt, mi] = *my;
    auto [nb, nw, nt, ni] = *nx;
    TF_RETURN_IF_SCHED_ERROR(cs.Reorder({mb, nb, mw, nw, mt, nt, mi, ni}), tmpl);
    if (batched_) TF_RETURN_IF_SCHED_ERROR(cs.Bind(cs.axis(0), "blockIdx.z"), tmpl);
    TF_RETURN_IF_SCHED_ERROR(cs.Bind(mb, "blockIdx.y"), tmpl);
    TF_RETURN_IF_SCHED_ERROR(cs.Bind(nb, "blockIdx.x"), tmpl);
    TF_RETURN_IF_SCHED_ERROR(cs.Bind(mw, "threadIdx.y"), tmpl);
    TF_RETURN_IF_SCHED_ERROR(cs.Bind(nw, "threadIdx.z"), tmpl);
    TF_RETURN_IF_SCHED_ERROR(cs.Unroll(mt), tmpl);
    TF_RETURN_IF_SCHED_ERROR(cs.Unroll(nt), tmpl);
    TF_RETURN_IF_SCHED_ERROR(cs.Tensorize(mi, TensorIntrinsic::kWmmaStore), tmpl);

    // The accumulators of one warp: k staged by chunks, then 16 at a time.
    schedule::Stage& ls = s[acc];
    TF_RETURN_IF_SCHED_ERROR(ls.ComputeAt(cs, nw), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(lm, ls.Split(ls.axis(off), kTile), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(ln, ls.Split(ls.axis(off + 1), kTile), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(ko, ls.Split(ls.reduce_axis(0), chunk * kTile), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(kt, ls.Split(ko.second, kTile), tmpl);
    TF_RETURN_IF_SCHED_ERROR(
        ls.Reorder({ko.first, kt.first, lm.first, ln.first, lm.second, ln.second, kt.second}),
        tmpl);
    for (const te::IterVar& iv : {kt.first, lm.first, ln.first}) {
      TF_RETURN_IF_SCHED_ERROR(ls.Unroll(iv), tmpl);
    }
    TF_RETURN_IF_SCHED_ERROR(ls.Tensorize(lm.second, TensorIntrinsic::kWmmaMma), tmpl);

    // Fragments of A and W for one 16-wide step of k.
    for (const auto& [frag, op] :
         {std::pair{af, TensorIntrinsic::kWmmaLoadA}, std::pair{wf, TensorIntrinsic::kWmmaLoadB}}) {
      schedule::Stage& fs = s[frag];
      TF_RETURN_IF_SCHED_ERROR(fs.ComputeAt(ls, kt.first), tmpl);
      TF_ASSIGN_OR_RETURN_SCHED(rows, fs.Split(fs.axis(off), kTile), tmpl);
      TF_RETURN_IF_SCHED_ERROR(fs.Unroll(rows.first), tmpl);
      TF_RETURN_IF_SCHED_ERROR(fs.Tensorize(rows.second, op), tmpl);
    }

    // Shared tiles of A and W for one chunk, filled by every thread of the block.
    const int64_t lanes = FillLanes(config->Other("vector"), w.dtype, chunk * kTile);
    for (const Tensor& shared : {as, ws}) {
      schedule::Stage& ss = s[shared];
      TF_RETURN_IF_SCHED_ERROR(ss.ComputeAt(ls, ko.first), tmpl);
      if (config->Other("skew") != 0) {
        TF_RETURN_IF_SCHED_ERROR(ss.SetStorageAlign(off, chunk * kTile, 8), tmpl);
      }
      TF_RETURN_IF_SCHED_ERROR(CooperativeFetch(tmpl, ss, {tn[1], tm[1], 32}, lanes), tmpl);
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
