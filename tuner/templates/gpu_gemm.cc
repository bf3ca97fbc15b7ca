#include "tuner/templates/gpu_gemm.h"

#include "compiler/ir/ir_operators.h"
#include "tuner/templates/gemm_common.h"
#include "tuner/templates/gpu_common.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {

using ir::Expr;
using ir::Var;
using te::Tensor;

void DefineGpuGemmSpace(int64_t m, int64_t n, int64_t k, ConfigSpace* space) {
  // At most 16 x 16 threads and 16 x 16 outputs per thread: every point fits the thread and
  // register limits; the few whose staged tiles exceed 48 KB of shared memory fail to build.
  space->DefineSplit("tile_y", m, 3, SplitPolicy::kFactors, /*max_factor=*/16);
  space->DefineSplit("tile_x", n, 3, SplitPolicy::kFactors, /*max_factor=*/16);
  space->DefineSplit("tile_k", k, 2, SplitPolicy::kFactors, /*max_factor=*/32);
  space->DefineOther("vector", {1, 2, 4, 8});
  space->DefineAnnotate("unroll_k", {"none", "unroll"});
}

absl::StatusOr<Instance> InstantiateGpuGemm(const std::string& name, int64_t batch, int64_t m,
                                            int64_t n, int64_t k, ir::DataType dtype,
                                            const Config& config) {
  const GemmOperands g = MakeGemmOperands(batch, m, n, k, dtype);
  const bool batched = batch > 0;
  const int off = g.off();
  const Tensor& a = g.a;
  const Tensor& w = g.w;
  // W transposed to [k, n] in shared memory, so a warp's reads of a k-row are contiguous.
  TF_TEMPLATE_ASSIGN_OR_RETURN(wt,
                               te::Compute(
                                   g.Shape({I32(k), I32(n)}),
                                   [&](const std::vector<Var>& i) {
                                     return w(g.At(i, {i[off + 1], i[off]}));
                                   },
                                   "W_T"),
                               name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(c,
                               te::Compute(
                                   g.Shape({I32(m), I32(n)}),
                                   [&](const std::vector<Var>& i) {
                                     return te::Sum(Widen(a(g.At(i, {i[off], g.k->var}))) *
                                                        Widen(wt(g.At(i, {g.k->var, i[off + 1]}))),
                                                    {g.k});
                                   },
                                   "C"),
                               name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({a, w, c}), name);
  schedule::Schedule& s = *inst.sch;

  TF_TEMPLATE_ASSIGN_OR_RETURN(ty, config.Split("tile_y"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(tx, config.Split("tile_x"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(tk, config.Split("tile_k"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(unroll_k, config.Annotate("unroll_k"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(vector, config.Other("vector"), name);
  const int64_t threads_y = ty[1], threads_x = tx[1];

  TF_TEMPLATE_ASSIGN_OR_RETURN(cc, s.CacheWrite(c, "local"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(aa, s.CacheRead(a, "shared", {cc}), name);
  TF_TEMPLATE_STAGE(ws, s, wt, name);
  ws.SetScope("shared");

  TF_TEMPLATE_STAGE(cs, s, c, name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(yb, cs.Split(cs.axis(off), ty[1] * ty[2]), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(xb, cs.Split(cs.axis(off + 1), tx[1] * tx[2]), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(yt, cs.Split(yb.second, ty[2]), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(xt, cs.Split(xb.second, tx[2]), name);
  std::vector<te::IterVar> order;
  if (batched) order.push_back(cs.axis(0));
  for (const te::IterVar& iv : {yb.first, xb.first, yt.first, xt.first, yt.second, xt.second}) {
    order.push_back(iv);
  }
  TF_TEMPLATE_RETURN_IF_ERROR(cs.Reorder(order), name);
  if (batched) TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(cs.axis(0), "blockIdx.z"), name);
  TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(yb.first, "blockIdx.y"), name);
  TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(xb.first, "blockIdx.x"), name);
  TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(yt.first, "threadIdx.y"), name);
  TF_TEMPLATE_RETURN_IF_ERROR(cs.Bind(xt.first, "threadIdx.x"), name);
  TF_TEMPLATE_RETURN_IF_ERROR(cs.Unroll(yt.second), name);
  // Each thread writes its row of the tile in float32x4 stores where the tile allows.
  if (tx[2] % 4 == 0) {
    TF_TEMPLATE_ASSIGN_OR_RETURN(xv, cs.Split(xt.second, 4), name);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Unroll(xv.first), name);
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Vectorize(xv.second), name);
  } else {
    TF_TEMPLATE_RETURN_IF_ERROR(cs.Unroll(xt.second), name);
  }

  TF_TEMPLATE_STAGE(ls, s, cc, name);
  TF_TEMPLATE_RETURN_IF_ERROR(ls.ComputeAt(cs, xt.first), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(ks, ls.Split(ls.reduce_axis(0), tk[1]), name);
  std::vector<te::IterVar> lorder;
  if (batched) lorder.push_back(ls.axis(0));
  for (const te::IterVar& iv : {ks.first, ks.second, ls.axis(off), ls.axis(off + 1)}) {
    lorder.push_back(iv);
  }
  TF_TEMPLATE_RETURN_IF_ERROR(ls.Reorder(lorder), name);
  TF_TEMPLATE_RETURN_IF_ERROR(ls.Unroll(ls.axis(off)), name);
  TF_TEMPLATE_RETURN_IF_ERROR(ls.Unroll(ls.axis(off + 1)), name);
  if (unroll_k == "unroll") TF_TEMPLATE_RETURN_IF_ERROR(ls.Unroll(ks.second), name);

  const int64_t lanes = FillLanes(vector, dtype, tk[1]);
  TF_TEMPLATE_STAGE(as, s, aa, name);
  TF_TEMPLATE_RETURN_IF_ERROR(as.ComputeAt(ls, ks.first), name);
  TF_TEMPLATE_RETURN_IF_ERROR(CooperativeFetch(name, as, {1, threads_y, threads_x}, lanes), name);
  // The transposed weight is filled in W's order (k innermost), so global reads coalesce.
  TF_TEMPLATE_RETURN_IF_ERROR(ws.ComputeAt(ls, ks.first), name);
  std::vector<te::IterVar> worder;
  if (batched) worder.push_back(ws.axis(0));
  worder.push_back(ws.axis(off + 1));
  worder.push_back(ws.axis(off));
  TF_TEMPLATE_RETURN_IF_ERROR(ws.Reorder(worder), name);
  TF_TEMPLATE_RETURN_IF_ERROR(CooperativeFetch(name, ws, {1, threads_y, threads_x}, lanes), name);
  return inst;
}

}  // namespace tunefarm::tuner
