// dense_splitk: C[M, N] = A[M, K] · W[N, K]ᵀ on a GPU for skinny outputs (few rows or columns,
// long K), where one thread per output leaves most of the GPU idle. K is split across the
// threads of a block (split-K inside the block, TVM's rfactor expressed in the program):
//
//   P[z, m, n] = Σ_r A[m, r·Z + z] · W[n, r·Z + z]     (Z partial sums; z = threadIdx.x, so
//                                                       neighbouring threads read neighbouring
//                                                       elements of A and W: coalesced)
//   C[m, n]    = Σ_z P[z, m, n]
//
// Each block owns a BM × BN tile of C; its partial sums P live in shared memory, each thread
// accumulating its share of them in registers; after a barrier the same threads add the Z
// partials of the block's outputs. float32, or float16 inputs with float32 accumulation.
// Knobs: tile_m, tile_n = [blocks, per block]; split_k (Z); threads_y (threads beside Z);
// skew (pad the partials' tiles against shared-memory bank conflicts).
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/gemm_common.h"
#include "tuner/templates/gpu_common.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

using ir::Expr;
using ir::Var;
using te::Tensor;

class DenseSplitKTemplate : public GemmTemplateBase {
 public:
  std::string name() const override { return "dense_splitk"; }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    if (target.kind != codegen::Target::Kind::kCUDA) {
      return absl::InvalidArgumentError(
          absl::StrCat(name(), " is a GPU schedule; use dense for '", target.str, "'"));
    }
    space->DefineSplit("tile_m", w.args[0], 2, SplitPolicy::kFactors, 32);
    space->DefineSplit("tile_n", w.args[1], 2, SplitPolicy::kFactors, 32);
    std::vector<int64_t> splits;
    for (int64_t z : {8, 16, 32, 64, 128}) {
      if (w.args[2] % z == 0) splits.push_back(z);
    }
    if (splits.empty()) splits.push_back(1);
    space->DefineOther("split_k", splits);
    space->DefineOther("threads_y", {1, 2, 4, 8});
    space->DefineOther("skew", {0, 1});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    const int64_t m = w.args[0], n = w.args[1], k = w.args[2];
    if (config == nullptr) return InstantiateGemm(name(), 0, m, n, k, w.dtype, nullptr);
    const std::string tmpl = name();
    TF_TEMPLATE_ASSIGN_OR_RETURN(z, config->Other("split_k"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_m, config->Split("tile_m"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_n, config->Split("tile_n"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(threads_y, config->Other("threads_y"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(skew, config->Other("skew"), tmpl);
    const int64_t bm = tile_m[1], bn = tile_n[1];
    // More threads along y than outputs per z-slice would idle; clamp to the tile.
    const int64_t ty = std::min(threads_y, bm * bn);
    Tensor a = te::Placeholder({I32(m), I32(k)}, w.dtype, "A");
    Tensor wt = te::Placeholder({I32(n), I32(k)}, w.dtype, "W");
    te::IterVar r = te::ReduceAxis(I32(k / z), "r");
    TF_TEMPLATE_ASSIGN_OR_RETURN(p,
                                 te::Compute(
                                     {I32(z), I32(m), I32(n)},
                                     [&](const std::vector<Var>& i) {
                                       Expr kk = r->var * I32(z) + i[0];
                                       return te::Sum(Widen(a(i[1], kk)) * Widen(wt(i[2], kk)),
                                                      {r});
                                     },
                                     "P"),
                                 tmpl);
    te::IterVar rz = te::ReduceAxis(I32(z), "rz");
    TF_TEMPLATE_ASSIGN_OR_RETURN(
        c,
        te::Compute(
            {I32(m), I32(n)},
            [&](const std::vector<Var>& i) { return te::Sum(p(rz->var, i[0], i[1]), {rz}); }, "C"),
        tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({a, wt, c}), tmpl);
    schedule::Schedule& s = *inst.sch;
    TF_TEMPLATE_ASSIGN_OR_RETURN(pl, s.CacheWrite(p, "local"), tmpl);
    TF_TEMPLATE_STAGE(ps, s, p, tmpl);
    ps.SetScope("shared");
    // Threads of one warp differ in z and write partials a whole tile apart: with `skew` the
    // tile's stride is padded to 1 mod 32 words so those stores hit 32 different banks.
    if (skew != 0 && bm * bn > 1) TF_TEMPLATE_RETURN_IF_ERROR(ps.SetStorageAlign(0, 32, 1), tmpl);

    // C: a BM x BN tile per block; its outputs spread over all z·ty threads, each summing Z
    // partials from shared memory.
    TF_TEMPLATE_STAGE(cs, s, c, tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ms, cs.Split(cs.axis(0), bm), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ns, cs.Split(cs.axis(1), bn), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Reorder({ms.first, ns.first, ms.second, ns.second}), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(ms.first, "blockIdx.y"), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(ns.first, "blockIdx.x"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(out, cs.Fuse(ms.second, ns.second), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ox, cs.Split(out, z), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(oy, cs.Split(ox.first, ty), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(ox.second, "threadIdx.x"), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(oy.second, "threadIdx.y"), tmpl);

    // P: z on threadIdx.x, the tile's outputs split over threadIdx.y, partials in registers.
    TF_TEMPLATE_RETURN_IF_ERROR(ps.ComputeAt(cs, ns.first), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile, ps.Fuse(ps.axis(1), ps.axis(2)), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(py, ps.SplitByNParts(tile, ty), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ps.Reorder({py.first, ps.axis(0), py.second}), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ps.Bind(py.first, "threadIdx.y"), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ps.Bind(ps.axis(0), "threadIdx.x"), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ps.Unroll(py.second), tmpl);
    TF_TEMPLATE_STAGE(ls, s, pl, tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ls.ComputeAt(ps, ps.axis(0)), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ls.Reorder({ls.reduce_axis(0), ls.axis(1), ls.axis(2)}), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ls.Unroll(ls.axis(1)), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ls.Unroll(ls.axis(2)), tmpl);
    return inst;
  }
};

TF_REGISTER_TEMPLATE(DenseSplitKTemplate);

}  // namespace
}  // namespace tunefarm::tuner
