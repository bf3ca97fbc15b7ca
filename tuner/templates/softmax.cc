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
    auto i32 = [](int64_t v) { return Expr(static_cast<int>(v)); };
    const int64_t m = w.args[0], n = w.args[1];
    Tensor x = te::Placeholder({i32(m), i32(n)}, w.dtype, "X");
    te::IterVar k1 = te::ReduceAxis(i32(n), "k1");
    Tensor mx = te::Compute(
        {i32(m)}, [&](const std::vector<Var>& i) { return te::Max(x(i[0], k1->var), {k1}); },
        "row_max");
    Tensor e = te::Compute(
        {i32(m), i32(n)},
        [&](const std::vector<Var>& i) { return ir::exp(x(i[0], i[1]) - mx(i[0])); }, "exp");
    te::IterVar k2 = te::ReduceAxis(i32(n), "k2");
    Tensor sum = te::Compute(
        {i32(m)}, [&](const std::vector<Var>& i) { return te::Sum(e(i[0], k2->var), {k2}); },
        "row_sum");
    Tensor y = te::Compute(
        {i32(m), i32(n)}, [&](const std::vector<Var>& i) { return e(i[0], i[1]) / sum(i[0]); },
        "Y");
    TF_ASSIGN_OR_RETURN_SCHED(inst, MakeInstance({x, y}), name());
    if (config == nullptr) return inst;
    schedule::Schedule& s = *inst.sch;
    const std::string tmpl = name();
    if (target.kind == codegen::Target::Kind::kCUDA) {
      const int64_t threads = config->Other("threads");
      schedule::Stage& ys = s[y];
      TF_RETURN_IF_SCHED_ERROR(s[e].ComputeInline(), tmpl);  // exp recomputed where read
      if (config->Other("block_per_row") == 0) {
        // A row per thread: its statistics are registers of that thread.
        TF_ASSIGN_OR_RETURN_SCHED(rows, ys.Split(ys.axis(0), threads), tmpl);
        TF_RETURN_IF_SCHED_ERROR(ys.Bind(rows.first, "blockIdx.x"), tmpl);
        TF_RETURN_IF_SCHED_ERROR(ys.Bind(rows.second, "threadIdx.x"), tmpl);
        for (const Tensor& stat : {sum, mx}) {
          s[stat].SetScope("local");
          TF_RETURN_IF_SCHED_ERROR(s[stat].ComputeAt(ys, rows.second), tmpl);
        }
        return inst;
      }
      // A row per block: the threads stride along the row, the statistics are cross-thread
      // reductions whose results the block shares.
      TF_RETURN_IF_SCHED_ERROR(ys.Bind(ys.axis(0), "blockIdx.x"), tmpl);
      TF_ASSIGN_OR_RETURN_SCHED(cols, ys.SplitByNParts(ys.axis(1), threads), tmpl);
      TF_RETURN_IF_SCHED_ERROR(ys.Bind(cols.first, "threadIdx.x"), tmpl);
      for (const Tensor& stat : {sum, mx}) {
        schedule::Stage& st = s[stat];
        st.SetScope("shared");
        TF_RETURN_IF_SCHED_ERROR(st.ComputeAt(ys, ys.axis(0)), tmpl);
        TF_ASSIGN_OR_RETURN_SCHED(k, st.SplitByNParts(st.reduce_axis(0), threads), tmpl);
        TF_RETURN_IF_SCHED_ERROR(st.Reorder({k.second, k.first}), tmpl);
        TF_RETURN_IF_SCHED_ERROR(st.Bind(k.first, "threadIdx.x"), tmpl);
      }
      return inst;
    }
    const int64_t vec = config->Split("tile_j")[1];
    schedule::Stage& ys = s[y];
    TF_ASSIGN_OR_RETURN_SCHED(yj, ys.Split(ys.axis(1), vec), tmpl);
    TF_RETURN_IF_SCHED_ERROR(ys.Vectorize(yj.second), tmpl);
    if (config->Other("parallel") != 0) TF_RETURN_IF_SCHED_ERROR(ys.Parallel(ys.axis(0)), tmpl);
    schedule::Stage& es = s[e];
    TF_ASSIGN_OR_RETURN_SCHED(ej, es.Split(es.axis(1), vec), tmpl);
    TF_RETURN_IF_SCHED_ERROR(es.Vectorize(ej.second), tmpl);
    if (config->Other("per_row") != 0) {
      // Consumers first: a stage attaches only where all its readers are.
      TF_RETURN_IF_SCHED_ERROR(s[sum].ComputeAt(ys, ys.axis(0)), tmpl);
      TF_RETURN_IF_SCHED_ERROR(es.ComputeAt(ys, ys.axis(0)), tmpl);
      TF_RETURN_IF_SCHED_ERROR(s[mx].ComputeAt(ys, ys.axis(0)), tmpl);
    }
    return inst;
  }
};

TF_REGISTER_TEMPLATE(SoftmaxTemplate);

}  // namespace
}  // namespace tunefarm::tuner
