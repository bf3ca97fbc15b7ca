// The GEMM schedule shared by dense and batch_matmul (x86, TVM's dense_pack style):
// the weight is packed into [N/bn][K][bn] panels, a bm×bn output tile accumulates in a local
// buffer (cache_write) with the rows unrolled and the columns vectorized, the reduction is
// split for unrolling, and the two outer tile loops are ordered by a knob.
#ifndef TUNEFARM_TUNER_TEMPLATES_GEMM_COMMON_H_
#define TUNEFARM_TUNER_TEMPLATES_GEMM_COMMON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/te/tensor.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

// The operands of C[b?, i, j] = Σ_k A[b?, i, k] · W[b?, j, k], shared by the CPU, GPU and
// tensor-core GEMM templates. batch == 0 means no batch axis.
struct GemmOperands {
  int64_t batch = 0;
  te::Tensor a, w;  // A: [b?, M, K], W: [b?, N, K].
  te::IterVar k;    // The reduction over [0, K).

  // The first axis after the batch axis: 1 when batched, else 0.
  int off() const { return batch > 0 ? 1 : 0; }
  // `dims` with the batch extent in front when batched.
  std::vector<ir::Expr> Shape(std::vector<ir::Expr> dims) const;
  // `rest` with the output point's batch index i[0] in front when batched: the index of an
  // operand at output point i.
  std::vector<ir::Expr> At(const std::vector<ir::Var>& i, std::vector<ir::Expr> rest) const;
};
GemmOperands MakeGemmOperands(int64_t batch, int64_t m, int64_t n, int64_t k, ir::DataType dtype);

// C = A·Wᵀ over [b?, M, N], inputs widened to the float32 accumulator: every GEMM template's
// reference program, and the computation the tensor-core schedule tiles.
absl::StatusOr<te::Tensor> PlainGemm(const GemmOperands& g, int64_t m, int64_t n);

// Validates the M,N,K args and the dtype (one of `dtypes`; float16 = half inputs, float32
// accumulation and output) of a GEMM template and counts its 2·M·N·K FLOPs.
absl::StatusOr<Workload> MakeGemmWorkload(const std::string& template_name,
                                          const std::vector<int64_t>& args, ir::DataType dtype,
                                          const std::vector<ir::DataType>& dtypes);

// The shape and dtype rules of the M,N,K GEMM templates (dense, dense_splitk): positive M, N,
// K; float32, or float16 inputs with float32 accumulation and output.
class GemmTemplateBase : public Template {
 public:
  std::string args_doc() const override { return "M,N,K"; }
  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& args,
                                        ir::DataType dtype) const override {
    return MakeGemmWorkload(name(), args, dtype,
                            {ir::DataType::Float(32), ir::DataType::Float(16)});
  }
};

// Knobs: tile_y (M), tile_x (N), tile_k (K), order, unroll_k, parallel.
void DefineGemmSpace(int64_t m, int64_t n, int64_t k, ConfigSpace* space);

// C[b?, m, n] = Σ_k A[b?, m, k] · W[b?, n, k]; batch = 0 means no batch axis.
// config == nullptr gives the plain reference program.
absl::StatusOr<Instance> InstantiateGemm(const std::string& template_name, int64_t batch, int64_t m,
                                         int64_t n, int64_t k, ir::DataType dtype,
                                         const Config* config);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_GEMM_COMMON_H_
