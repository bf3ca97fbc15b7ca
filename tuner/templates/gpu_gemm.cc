#include "tuner/templates/gpu_gemm.h"

#include "compiler/ir/ir_operators.h"
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
  const bool batched = batch > 0;
  const int off = batched ? 1 : 0;
  auto i32 = [](int64_t v) { return Expr(static_cast<int>(v)); };
  auto shape = [&](std::vector<Expr> dims) {
    if (batched) dims.insert(dims.begin(), i32(batch));
    return dims;
  };
  auto index = [&](const std::vector<Var>& i, Expr row, Expr col) {
    std::vector<Expr> idx;
    if (batched) idx.push_back(i[0]);
    idx.push_back(std::move(row));
    idx.push_back(std::move(col));
    return idx;
  };
  Tensor a = te::Placeholder(shape({i32(m), i32(k)}), dtype, "A");
  Tensor w = te::Placeholder(shape({i32(n), i32(k)}), dtype, "W");
  Tensor wt = te::Compute(
      shape({i32(k), i32(n)}),
      [&](const std::vector<Var>& i) { return w(index(i, i[off + 1], i[off])); }, "W_T");
  te::IterVar kk = te::ReduceAxis(i32(k), "k");
  Tensor c = te::Compute(
      shape({i32(m), i32(n)}),
      [&](const std::vector<Var>& i) {
        return te::Sum(
            Widen(a(index(i, i[off], kk->var))) * Widen(wt(index(i, kk->var, i[off + 1]))), {kk});
      },
      "C");
  TF_ASSIGN_OR_RETURN_SCHED(inst, MakeInstance({a, w, c}), name);
  schedule::Schedule& s = *inst.sch;

  std::vector<int64_t> ty = config.Split("tile_y");
  std::vector<int64_t> tx = config.Split("tile_x");
  std::vector<int64_t> tk = config.Split("tile_k");
  const int64_t threads_y = ty[1], threads_x = tx[1];

  TF_ASSIGN_OR_RETURN_SCHED(cc, s.CacheWrite(c, "local"), name);
  TF_ASSIGN_OR_RETURN_SCHED(aa, s.CacheRead(a, "shared", {cc}), name);
  s[wt].SetScope("shared");

  schedule::Stage& cs = s[c];
  TF_ASSIGN_OR_RETURN_SCHED(yb, cs.Split(cs.axis(off), ty[1] * ty[2]), name);
  TF_ASSIGN_OR_RETURN_SCHED(xb, cs.Split(cs.axis(off + 1), tx[1] * tx[2]), name);
  TF_ASSIGN_OR_RETURN_SCHED(yt, cs.Split(yb.second, ty[2]), name);
  TF_ASSIGN_OR_RETURN_SCHED(xt, cs.Split(xb.second, tx[2]), name);
  std::vector<te::IterVar> order;
  if (batched) order.push_back(cs.axis(0));
  for (const te::IterVar& iv : {yb.first, xb.first, yt.first, xt.first, yt.second, xt.second}) {
    order.push_back(iv);
  }
  TF_RETURN_IF_SCHED_ERROR(cs.Reorder(order), name);
  if (batched) TF_RETURN_IF_SCHED_ERROR(cs.Bind(cs.axis(0), "blockIdx.z"), name);
  TF_RETURN_IF_SCHED_ERROR(cs.Bind(yb.first, "blockIdx.y"), name);
  TF_RETURN_IF_SCHED_ERROR(cs.Bind(xb.first, "blockIdx.x"), name);
  TF_RETURN_IF_SCHED_ERROR(cs.Bind(yt.first, "threadIdx.y"), name);
  TF_RETURN_IF_SCHED_ERROR(cs.Bind(xt.first, "threadIdx.x"), name);
  TF_RETURN_IF_SCHED_ERROR(cs.Unroll(yt.second), name);
  // Each thread writes its row of the tile in float32x4 stores where the tile allows.
  if (tx[2] % 4 == 0) {
    TF_ASSIGN_OR_RETURN_SCHED(xv, cs.Split(xt.second, 4), name);
    TF_RETURN_IF_SCHED_ERROR(cs.Unroll(xv.first), name);
    TF_RETURN_IF_SCHED_ERROR(cs.Vectorize(xv.second), name);
  } else {
    TF_RETURN_IF_SCHED_ERROR(cs.Unroll(xt.second), name);
  }

  schedule::Stage& ls = s[cc];
  TF_RETURN_IF_SCHED_ERROR(ls.ComputeAt(cs, xt.first), name);
  TF_ASSIGN_OR_RETURN_SCHED(ks, ls.Split(ls.reduce_axis(0), tk[1]), name);
  std::vector<te::IterVar> lorder;
  if (batched) lorder.push_back(ls.axis(0));
  for (const te::IterVar& iv : {ks.first, ks.second, ls.axis(off), ls.axis(off + 1)}) {
    lorder.push_back(iv);
  }
  TF_RETURN_IF_SCHED_ERROR(ls.Reorder(lorder), name);
  TF_RETURN_IF_SCHED_ERROR(ls.Unroll(ls.axis(off)), name);
  TF_RETURN_IF_SCHED_ERROR(ls.Unroll(ls.axis(off + 1)), name);
  if (config.Annotate("unroll_k") == "unroll") TF_RETURN_IF_SCHED_ERROR(ls.Unroll(ks.second), name);

  const int64_t lanes = FillLanes(config.Other("vector"), dtype, tk[1]);
  schedule::Stage& as = s[aa];
  TF_RETURN_IF_SCHED_ERROR(as.ComputeAt(ls, ks.first), name);
  TF_RETURN_IF_SCHED_ERROR(CooperativeFetch(name, as, {1, threads_y, threads_x}, lanes), name);
  // The transposed weight is filled in W's order (k innermost), so global reads coalesce.
  schedule::Stage& ws = s[wt];
  TF_RETURN_IF_SCHED_ERROR(ws.ComputeAt(ls, ks.first), name);
  std::vector<te::IterVar> worder;
  if (batched) worder.push_back(ws.axis(0));
  worder.push_back(ws.axis(off + 1));
  worder.push_back(ws.axis(off));
  TF_RETURN_IF_SCHED_ERROR(ws.Reorder(worder), name);
  TF_RETURN_IF_SCHED_ERROR(CooperativeFetch(name, ws, {1, threads_y, threads_x}, lanes), name);
  return inst;
}

}  // namespace tunefarm::tuner
