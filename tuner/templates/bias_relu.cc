// bias_relu: the generic elementwise template, with broadcasting. Y[i, j] = max(X[i, j] +
// B[j], 0) over an M×N matrix. Knobs: vector width of the inner loop, an unroll factor of the
// rows, and parallel rows.
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

using ir::Expr;
using ir::Var;
using te::Tensor;

class BiasReluTemplate : public Template {
 public:
  std::string name() const override { return "bias_relu"; }
  std::string args_doc() const override { return "M,N"; }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& a,
                                        ir::DataType dtype) const override {
    if (absl::Status s = CheckArgs(name(), a, args_doc()); !s.ok()) return s;
    if (absl::Status s = CheckDtype(name(), dtype, {ir::DataType::Float(32)}); !s.ok()) return s;
    return Workload{name(), a, dtype, 2.0 * a[0] * a[1]};
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target&,
                           ConfigSpace* space) const override {
    space->DefineSplit("tile_j", w.args[1], 2, SplitPolicy::kFactors, 64);
    space->DefineSplit("tile_i", w.args[0], 2, SplitPolicy::kFactors, 8);
    space->DefineOther("parallel", {0, 1});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target&,
                                       const Config* config) const override {
    auto i32 = [](int64_t v) { return Expr(static_cast<int>(v)); };
    Tensor x = te::Placeholder({i32(w.args[0]), i32(w.args[1])}, w.dtype, "X");
    Tensor b = te::Placeholder({i32(w.args[1])}, w.dtype, "B");
    Tensor y = te::Compute(
        {i32(w.args[0]), i32(w.args[1])},
        [&](const std::vector<Var>& i) { return ir::max(x(i[0], i[1]) + b(i[1]), Expr(0.0f)); },
        "Y");
    TF_ASSIGN_OR_RETURN_SCHED(inst, MakeInstance({x, b, y}), name());
    if (config == nullptr) return inst;
    schedule::Stage& ys = (*inst.sch)[y];
    const std::string tmpl = name();
    TF_ASSIGN_OR_RETURN_SCHED(js, ys.Split(ys.axis(1), config->Split("tile_j")[1]), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(is, ys.Split(ys.axis(0), config->Split("tile_i")[1]), tmpl);
    TF_RETURN_IF_SCHED_ERROR(ys.Reorder({is.first, js.first, is.second, js.second}), tmpl);
    TF_RETURN_IF_SCHED_ERROR(ys.Vectorize(js.second), tmpl);
    TF_RETURN_IF_SCHED_ERROR(ys.Unroll(is.second), tmpl);
    if (config->Other("parallel") != 0) TF_RETURN_IF_SCHED_ERROR(ys.Parallel(is.first), tmpl);
    return inst;
  }
};

TF_REGISTER_TEMPLATE(BiasReluTemplate);

}  // namespace
}  // namespace tunefarm::tuner
