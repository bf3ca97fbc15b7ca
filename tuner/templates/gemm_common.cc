#include "tuner/templates/gemm_common.h"

#include "compiler/ir/ir_operators.h"
#include "tuner/templates/gpu_common.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {

using ir::Expr;
using ir::Var;
using te::Tensor;

absl::StatusOr<Workload> MakeGemmWorkload(const std::string& name, const std::vector<int64_t>& args,
                                          ir::DataType dtype,
                                          const std::vector<ir::DataType>& dtypes) {
  if (absl::Status s = CheckArgs(name, args, "M,N,K"); !s.ok()) return s;
  if (absl::Status s = CheckDtype(name, dtype, dtypes); !s.ok()) return s;
  return Workload{name, args, dtype, 2.0 * args[0] * args[1] * args[2]};
}

void DefineGemmSpace(int64_t m, int64_t n, int64_t k, ConfigSpace* space) {
  space->DefineSplit("tile_y", m, 2, SplitPolicy::kFactors, /*max_factor=*/16);
  space->DefineSplit("tile_x", n, 2, SplitPolicy::kFactors, /*max_factor=*/64);
  space->DefineSplit("tile_k", k, 2, SplitPolicy::kFactors, /*max_factor=*/16);
  space->DefineReorder("order", {{0, 1}, {1, 0}});
  space->DefineAnnotate("unroll_k", {"none", "unroll"});
  space->DefineOther("parallel", {0, 1});
}

absl::StatusOr<Instance> InstantiateGemm(const std::string& name, int64_t batch, int64_t m,
                                         int64_t n, int64_t k, ir::DataType dtype,
                                         const Config* config) {
  const bool batched = batch > 0;
  auto shape = [&](std::vector<Expr> dims) {
    if (batched) dims.insert(dims.begin(), Expr(static_cast<int>(batch)));
    return dims;
  };
  auto i32 = [](int64_t v) { return Expr(static_cast<int>(v)); };
  Tensor a = te::Placeholder(shape({i32(m), i32(k)}), dtype, "A");
  Tensor w = te::Placeholder(shape({i32(n), i32(k)}), dtype, "W");
  te::IterVar kk = te::ReduceAxis(i32(k), "k");
  auto at = [&](const std::vector<Var>& i, int row) -> std::vector<Expr> {
    std::vector<Expr> idx;
    if (batched) idx.push_back(i[0]);
    idx.push_back(i[row]);
    idx.push_back(kk->var);
    return idx;
  };
  const int off = batched ? 1 : 0;
  if (config == nullptr) {
    Tensor c = te::Compute(
        shape({i32(m), i32(n)}),
        [&](const std::vector<Var>& i) {
          return te::Sum(Widen(a(at(i, off))) * Widen(w(at(i, off + 1))), {kk});
        },
        "C");
    return MakeInstance({a, w, c});
  }

  std::vector<int64_t> ty = config->Split("tile_y");
  std::vector<int64_t> tx = config->Split("tile_x");
  std::vector<int64_t> tk = config->Split("tile_k");
  const int64_t bn = tx[1];
  Tensor packed = te::Compute(
      shape({i32(n / bn), i32(k), i32(bn)}),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx;
        if (batched) idx.push_back(i[0]);
        idx.push_back(i[off] * i32(bn) + i[off + 2]);
        idx.push_back(i[off + 1]);
        return w(idx);
      },
      "W_packed");
  Tensor c = te::Compute(
      shape({i32(m), i32(n)}),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> pidx;
        if (batched) pidx.push_back(i[0]);
        pidx.push_back(ir::floordiv(i[off + 1], i32(bn)));
        pidx.push_back(kk->var);
        pidx.push_back(ir::floormod(i[off + 1], i32(bn)));
        return te::Sum(Widen(a(at(i, off))) * Widen(packed(pidx)), {kk});
      },
      "C");
  TF_ASSIGN_OR_RETURN_SCHED(inst, MakeInstance({a, w, c}), name);
  schedule::Schedule& s = *inst.sch;

  TF_ASSIGN_OR_RETURN_SCHED(cc, s.CacheWrite(c, "local"), name);
  schedule::Stage& cs = s[c];
  TF_ASSIGN_OR_RETURN_SCHED(ysplit, cs.Split(cs.axis(off), ty[1]), name);
  TF_ASSIGN_OR_RETURN_SCHED(xsplit, cs.Split(cs.axis(off + 1), bn), name);
  auto [mo, mi] = ysplit;
  auto [no, ni] = xsplit;
  bool n_outer = config->Reorder("order")[0] == 0;
  te::IterVar outer = n_outer ? no : mo, inner = n_outer ? mo : no;
  std::vector<te::IterVar> order;
  if (batched) order.push_back(cs.axis(0));
  for (const te::IterVar& iv : {outer, inner, mi, ni}) order.push_back(iv);
  TF_RETURN_IF_SCHED_ERROR(cs.Reorder(order), name);
  TF_RETURN_IF_SCHED_ERROR(cs.Vectorize(ni), name);
  bool parallel = config->Other("parallel") != 0;
  te::IterVar par = outer;
  if (batched) {
    TF_ASSIGN_OR_RETURN_SCHED(fused, cs.Fuse(cs.axis(0), outer), name);
    par = fused;
  }
  if (parallel) TF_RETURN_IF_SCHED_ERROR(cs.Parallel(par), name);

  schedule::Stage& ls = s[cc];
  TF_RETURN_IF_SCHED_ERROR(ls.ComputeAt(cs, inner), name);
  TF_ASSIGN_OR_RETURN_SCHED(ksplit, ls.Split(ls.reduce_axis(0), tk[1]), name);
  std::vector<te::IterVar> lorder;
  if (batched) lorder.push_back(ls.axis(0));
  for (const te::IterVar& iv : {ksplit.first, ksplit.second, ls.axis(off), ls.axis(off + 1)}) {
    lorder.push_back(iv);
  }
  TF_RETURN_IF_SCHED_ERROR(ls.Reorder(lorder), name);
  TF_RETURN_IF_SCHED_ERROR(ls.Unroll(ls.axis(off)), name);
  TF_RETURN_IF_SCHED_ERROR(ls.Vectorize(ls.axis(off + 1)), name);
  if (config->Annotate("unroll_k") == "unroll") {
    TF_RETURN_IF_SCHED_ERROR(ls.Unroll(ksplit.second), name);
  }

  schedule::Stage& ps = s[packed];
  TF_RETURN_IF_SCHED_ERROR(ps.Vectorize(ps.axis(off + 2)), name);
  if (parallel) TF_RETURN_IF_SCHED_ERROR(ps.Parallel(ps.axis(off)), name);
  return inst;
}

}  // namespace tunefarm::tuner
