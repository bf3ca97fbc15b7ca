// softmax: the generic reduction template. Y[i, j] = exp(X[i, j] - max_j X[i, :]) /
// Σ_j exp(X[i, j] - max_j X[i, :]) over rows of an M×N matrix: a max-reduction, an
// elementwise stage, a sum-reduction and a broadcast division. Knobs choose the vector width
// of the elementwise stages, whether the row statistics are computed per row inside the output
// loop (cache-resident) or as whole tensors first, and row parallelism. On a GPU a thread
// handles one row, or a block does (its threads stride along the row and the statistics are
// cross-thread reductions); knobs: threads per block and which of the two.
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

using ir::Expr;
using ir::Var;
using te::Tensor;

class SoftmaxTemplate : public Template {
 public:
  std::string name() const override { return "softmax"; }
  std::string args_doc() const override { return "M,N"; }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& a,
                                        ir::DataType dtype) const override {
    if (absl::Status s = CheckArgs(name(), a, args_doc()); !s.ok()) return s;
    if (absl::Status s = CheckDtype(name(), dtype, {ir::DataType::Float(32)}); !s.ok()) return s;
    // max, subtract, exp (counted as 1), sum, divide: 5 operations per element.
    return Workload{name(), a, dtype, 5.0 * a[0] * a[1]};
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    if (target.kind == codegen::Target::Kind::kCUDA) {
      space->DefineOther("threads", {32, 64, 128, 256, 512});
      space->DefineOther("block_per_row", {0, 1});
      return absl::OkStatus();
    }
    space->DefineSplit("tile_j", w.args[1], 2, SplitPolicy::kFactors, 64);
    space->DefineOther("per_row", {0, 1});
    space->DefineOther("parallel", {0, 1});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    const std::string tmpl = name();
    const int64_t m = w.args[0], n = w.args[1];
    Tensor x = te::Placeholder({I32(m), I32(n)}, w.dtype, "X");
    te::IterVar k1 = te::ReduceAxis(I32(n), "k1");
    TF_TEMPLATE_ASSIGN_OR_RETURN(
        mx,
        te::Compute(
            {I32(m)}, [&](const std::vector<Var>& i) { return te::Max(x(i[0], k1->var), {k1}); },
            "row_max"),
        tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(
        e,
        te::Compute(
            {I32(m), I32(n)},
            [&](const std::vector<Var>& i) { return ir::exp(x(i[0], i[1]) - mx(i[0])); }, "exp"),
        tmpl);
    te::IterVar k2 = te::ReduceAxis(I32(n), "k2");
    TF_TEMPLATE_ASSIGN_OR_RETURN(
        sum,
        te::Compute(
            {I32(m)}, [&](const std::vector<Var>& i) { return te::Sum(e(i[0], k2->var), {k2}); },
            "row_sum"),
        tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(
        y,
        te::Compute(
            {I32(m), I32(n)}, [&](const std::vector<Var>& i) { return e(i[0], i[1]) / sum(i[0]); },
            "Y"),
        tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({x, y}), tmpl);
    if (config == nullptr) return inst;
    schedule::Schedule& s = *inst.sch;
    TF_TEMPLATE_STAGE(es, s, e, tmpl);
    TF_TEMPLATE_STAGE(sums, s, sum, tmpl);
    TF_TEMPLATE_STAGE(mxs, s, mx, tmpl);
    if (target.kind == codegen::Target::Kind::kCUDA) {
      TF_TEMPLATE_ASSIGN_OR_RETURN(threads, config->Other("threads"), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(block_per_row, config->Other("block_per_row"), tmpl);
      TF_TEMPLATE_STAGE(ys, s, y, tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(es.ComputeInline(), tmpl);  // exp recomputed where read
      if (block_per_row == 0) {
        // A row per thread: its statistics are registers of that thread.
        TF_TEMPLATE_ASSIGN_OR_RETURN(rows, ys.Split(ys.axis(0), threads), tmpl);
        TF_TEMPLATE_RETURN_IF_ERROR(ys.Bind(rows.first, "blockIdx.x"), tmpl);
        TF_TEMPLATE_RETURN_IF_ERROR(ys.Bind(rows.second, "threadIdx.x"), tmpl);
        for (schedule::Stage* stat : {&sums, &mxs}) {
          stat->SetScope("local");
          TF_TEMPLATE_RETURN_IF_ERROR(stat->ComputeAt(ys, rows.second), tmpl);
        }
        return inst;
      }
      // A row per block: the threads stride along the row, the statistics are cross-thread
      // reductions whose results the block shares.
      TF_TEMPLATE_RETURN_IF_ERROR(ys.Bind(ys.axis(0), "blockIdx.x"), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(cols, ys.SplitByNParts(ys.axis(1), threads), tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(ys.Bind(cols.first, "threadIdx.x"), tmpl);
      for (schedule::Stage* stat : {&sums, &mxs}) {
        schedule::Stage& st = *stat;
        st.SetScope("shared");
        TF_TEMPLATE_RETURN_IF_ERROR(st.ComputeAt(ys, ys.axis(0)), tmpl);
        TF_TEMPLATE_ASSIGN_OR_RETURN(k, st.SplitByNParts(st.reduce_axis(0), threads), tmpl);
        TF_TEMPLATE_RETURN_IF_ERROR(st.Reorder({k.second, k.first}), tmpl);
        TF_TEMPLATE_RETURN_IF_ERROR(st.Bind(k.first, "threadIdx.x"), tmpl);
      }
      return inst;
    }
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_j, config->Split("tile_j"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(parallel, config->Other("parallel"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(per_row, config->Other("per_row"), tmpl);
    const int64_t vec = tile_j[1];
    TF_TEMPLATE_STAGE(ys, s, y, tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(yj, ys.Split(ys.axis(1), vec), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ys.Vectorize(yj.second), tmpl);
    if (parallel != 0) TF_TEMPLATE_RETURN_IF_ERROR(ys.Parallel(ys.axis(0)), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ej, es.Split(es.axis(1), vec), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(es.Vectorize(ej.second), tmpl);
    if (per_row != 0) {
      // Consumers first: a stage attaches only where all its readers are.
      TF_TEMPLATE_RETURN_IF_ERROR(sums.ComputeAt(ys, ys.axis(0)), tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(es.ComputeAt(ys, ys.axis(0)), tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(mxs.ComputeAt(ys, ys.axis(0)), tmpl);
    }
    return inst;
  }
};

TF_REGISTER_TEMPLATE(SoftmaxTemplate);

}  // namespace
}  // namespace tunefarm::tuner
