// dense: C[M, N] = A[M, K] · W[N, K]ᵀ (TVM's dense; the weight is [out, in]).
#include "compiler/ir/type.h"
#include "tuner/templates/gemm_common.h"
#include "tuner/templates/gpu_gemm.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

class DenseTemplate : public GemmTemplateBase {
 public:
  std::string name() const override { return "dense"; }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    if (target.kind == codegen::Target::Kind::kCUDA) {
      DefineGpuGemmSpace(w.args[0], w.args[1], w.args[2], space);
      return absl::OkStatus();
    }
    DefineGemmSpace(w.args[0], w.args[1], w.args[2], space);
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    if (target.kind == codegen::Target::Kind::kCUDA && config != nullptr) {
      return InstantiateGpuGemm(name(), 0, w.args[0], w.args[1], w.args[2], w.dtype, *config);
    }
    return InstantiateGemm(name(), 0, w.args[0], w.args[1], w.args[2], w.dtype, config);
  }
};

TF_REGISTER_TEMPLATE(DenseTemplate);

}  // namespace
}  // namespace tunefarm::tuner
