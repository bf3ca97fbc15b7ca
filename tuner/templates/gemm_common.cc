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

std::vector<Expr> GemmOperands::Shape(std::vector<Expr> dims) const {
  if (batch > 0) dims.insert(dims.begin(), I32(batch));
  return dims;
}

std::vector<Expr> GemmOperands::At(const std::vector<Var>& i, std::vector<Expr> rest) const {
  if (batch > 0) rest.insert(rest.begin(), i[0]);
  return rest;
}

GemmOperands MakeGemmOperands(int64_t batch, int64_t m, int64_t n, int64_t k, ir::DataType dtype) {
  GemmOperands g;
  g.batch = batch;
  g.a = te::Placeholder(g.Shape({I32(m), I32(k)}), dtype, "A");
  g.w = te::Placeholder(g.Shape({I32(n), I32(k)}), dtype, "W");
  g.k = te::ReduceAxis(I32(k), "k");
  return g;
}

absl::StatusOr<te::Tensor> PlainGemm(const GemmOperands& g, int64_t m, int64_t n) {
  const int off = g.off();
  return te::Compute(
      g.Shape({I32(m), I32(n)}),
      [&](const std::vector<Var>& i) {
        return te::Sum(
            Widen(g.a(g.At(i, {i[off], g.k->var}))) * Widen(g.w(g.At(i, {i[off + 1], g.k->var}))),
            {g.k});
      },
      "C");
}

absl::StatusOr<Instance> InstantiateGemm(const std::string& name, int64_t batch, int64_t m,
                                         int64_t n, int64_t k, ir::DataType dtype,
                                         const Config* config) {
  const GemmOperands g = MakeGemmOperands(batch, m, n, k, dtype);
  const bool batched = batch > 0;
  const int off = g.off();
  const Tensor& a = g.a;
  const Tensor& w = g.w;
  if (config == nullptr) {
    TF_TEMPLATE_ASSIGN_OR_RETURN(c, PlainGemm(g, m, n), name);
    return MakeInstance({a, w, c});
  }

  TF_TEMPLATE_ASSIGN_OR_RETURN(ty, config->Split("tile_y"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(tx, config->Split("tile_x"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(tk, config->Split("tile_k"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(tile_order, config->Reorder("order"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(unroll_k, config->Annotate("unroll_k"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(parallel_knob, config->Other("parallel"), name);
  const bool parallel = parallel_knob != 0;
  const int64_t bn = tx[1];
  TF_TEMPLATE_ASSIGN_OR_RETURN(packed,
                               te::Compute(
                                   g.Shape({I32(n / bn), I32(k), I32(bn)}),
                                   [&](const std::vector<Var>& i) {
                                     return w(g.At(i, {i[off] * I32(bn) + i[off + 2], i[off + 1]}));
                                   },
                                   "W_packed"),
                               name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(
      c,
      te::Compute(
          g.Shape({I32(m), I32(n)}),
          [&](const std::vector<Var>& i) {
            const Expr col = i[off + 1];
            return te::Sum(Widen(a(g.At(i, {i[off], g.k->var}))) *
                               Widen(packed(g.At(i, {ir::floordiv(col, I32(bn)), g.k->var,
                                                     ir::floormod(col, I32(bn))}))),
                           {g.k});
          },
          "C"),
      name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({a, w, c}), name);
  schedule::Schedule& s = *inst.sch;

  TF_TEMPLATE_ASSIGN_OR_RETURN(cc, s.CacheWrite(c, "local"), name);
  TF_TEMPLATE_STAGE(cs, s, c, name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(ysplit, cs.Split(cs.axis(off), ty[1]), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(xsplit, cs.Split(cs.axis(off + 1), bn), name);
  auto [mo, mi] = ysplit;
  auto [no, ni] = xsplit;
  const bool n_outer = tile_order[0] == 0;
  te::IterVar outer = n_outer ? no : mo, inner = n_outer ? mo : no;
  std::vector<te::IterVar> order;
  if (batched) order.push_back(cs.axis(0));
  for (const te::IterVar& iv : {outer, inner, mi, ni}) order.push_back(iv);
  TF_TEMPLATE_RETURN_IF_ERROR(cs.Reorder(order), name);
  TF_TEMPLATE_RETURN_IF_ERROR(cs.Vectorize(ni), name);
  te::IterVar par = outer;
  if (batched) {
    TF_TEMPLATE_ASSIGN_OR_RETURN(fused, cs.Fuse(cs.axis(0), outer), name);
    par = fused;
  }
  if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(cs.Parallel(par), name);

  TF_TEMPLATE_STAGE(ls, s, cc, name);
  TF_TEMPLATE_RETURN_IF_ERROR(ls.ComputeAt(cs, inner), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(ksplit, ls.Split(ls.reduce_axis(0), tk[1]), name);
  std::vector<te::IterVar> lorder;
  if (batched) lorder.push_back(ls.axis(0));
  for (const te::IterVar& iv : {ksplit.first, ksplit.second, ls.axis(off), ls.axis(off + 1)}) {
    lorder.push_back(iv);
  }
  TF_TEMPLATE_RETURN_IF_ERROR(ls.Reorder(lorder), name);
  TF_TEMPLATE_RETURN_IF_ERROR(ls.Unroll(ls.axis(off)), name);
  TF_TEMPLATE_RETURN_IF_ERROR(ls.Vectorize(ls.axis(off + 1)), name);
  if (unroll_k == "unroll") {
    TF_TEMPLATE_RETURN_IF_ERROR(ls.Unroll(ksplit.second), name);
  }

  TF_TEMPLATE_STAGE(ps, s, packed, name);
  TF_TEMPLATE_RETURN_IF_ERROR(ps.Vectorize(ps.axis(off + 2)), name);
  if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(ps.Parallel(ps.axis(off)), name);
  return inst;
}

}  // namespace tunefarm::tuner
