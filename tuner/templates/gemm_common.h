// The GEMM schedule shared by dense and batch_matmul (x86, TVM's dense_pack style):
// the weight is packed into [N/bn][K][bn] panels, a bm×bn output tile accumulates in a local
// buffer (cache_write) with the rows unrolled and the columns vectorized, the reduction is
// split for unrolling, and the two outer tile loops are ordered by a knob.
#ifndef TUNEFARM_TUNER_TEMPLATES_GEMM_COMMON_H_
#define TUNEFARM_TUNER_TEMPLATES_GEMM_COMMON_H_

#include "absl/status/statusor.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

// Validates the M,N,K args and the dtype (one of `dtypes`; float16 = half inputs, float32
// accumulation and output) of a GEMM template and counts its 2·M·N·K FLOPs.
absl::StatusOr<Workload> MakeGemmWorkload(const std::string& template_name,
                                          const std::vector<int64_t>& args, ir::DataType dtype,
                                          const std::vector<ir::DataType>& dtypes);

// Knobs: tile_y (M), tile_x (N), tile_k (K), order, unroll_k, parallel.
void DefineGemmSpace(int64_t m, int64_t n, int64_t k, ConfigSpace* space);

// C[b?, m, n] = Σ_k A[b?, m, k] · W[b?, n, k]; batch = 0 means no batch axis.
// config == nullptr gives the plain reference program.
absl::StatusOr<Instance> InstantiateGemm(const std::string& template_name, int64_t batch, int64_t m,
                                         int64_t n, int64_t k, ir::DataType dtype,
                                         const Config* config);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_GEMM_COMMON_H_
