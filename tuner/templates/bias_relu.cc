// bias_relu: the generic elementwise template, with broadcasting. Y[i, j] = max(X[i, j] +
// B[j], 0) over an M×N matrix. Knobs: vector width of the inner loop, an unroll factor of the
// rows, and parallel rows; on a GPU, threads per block and elements per thread.
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/gpu_common.h"
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

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    if (target.kind == codegen::Target::Kind::kCUDA) {
      // Every element on its own thread (or `vector` neighbours in a row on one thread).
      space->DefineOther("threads", {64, 128, 256, 512, 1024});
      space->DefineOther("vector", {1, 2, 4});
      return absl::OkStatus();
    }
    space->DefineSplit("tile_j", w.args[1], 2, SplitPolicy::kFactors, 64);
    space->DefineSplit("tile_i", w.args[0], 2, SplitPolicy::kFactors, 8);
    space->DefineOther("parallel", {0, 1});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    const std::string tmpl = name();
    Tensor x = te::Placeholder({I32(w.args[0]), I32(w.args[1])}, w.dtype, "X");
    Tensor b = te::Placeholder({I32(w.args[1])}, w.dtype, "B");
    TF_TEMPLATE_ASSIGN_OR_RETURN(
        y,
        te::Compute(
            {I32(w.args[0]), I32(w.args[1])},
            [&](const std::vector<Var>& i) { return ir::max(x(i[0], i[1]) + b(i[1]), Expr(0.0f)); },
            "Y"),
        tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({x, b, y}), tmpl);
    if (config == nullptr) return inst;
    TF_TEMPLATE_STAGE(ys, *inst.sch, y, tmpl);
    if (target.kind == codegen::Target::Kind::kCUDA) {
      TF_TEMPLATE_ASSIGN_OR_RETURN(vector, config->Other("vector"), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(threads, config->Other("threads"), tmpl);
      const int64_t lanes = FillLanes(vector, w.dtype, w.args[1]);
      TF_TEMPLATE_ASSIGN_OR_RETURN(all, ys.Fuse(ys.axis(0), ys.axis(1)), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(v, ys.Split(all, lanes), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(t, ys.Split(v.first, threads), tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(ys.Bind(t.first, "blockIdx.x"), tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(ys.Bind(t.second, "threadIdx.x"), tmpl);
      if (lanes > 1) TF_TEMPLATE_RETURN_IF_ERROR(ys.Vectorize(v.second), tmpl);
      return inst;
    }
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_j, config->Split("tile_j"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_i, config->Split("tile_i"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(parallel, config->Other("parallel"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(js, ys.Split(ys.axis(1), tile_j[1]), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(is, ys.Split(ys.axis(0), tile_i[1]), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ys.Reorder({is.first, js.first, is.second, js.second}), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ys.Vectorize(js.second), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ys.Unroll(is.second), tmpl);
    if (parallel != 0) TF_TEMPLATE_RETURN_IF_ERROR(ys.Parallel(is.first), tmpl);
    return inst;
  }
};

TF_REGISTER_TEMPLATE(BiasReluTemplate);

}  // namespace
}  // namespace tunefarm::tuner
