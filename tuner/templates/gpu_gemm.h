// The CUDA GEMM schedule shared by dense and batch_matmul (TVM's dense/matmul cuda style):
//   - an output tile per block (blockIdx.y, blockIdx.x; the batch on blockIdx.z), a register
//     tile per thread (threadIdx.y, threadIdx.x) accumulated in a "local" buffer;
//   - the reduction staged through shared memory tile_k at a time: A as is, the weight
//     transposed to [k][n] so that neighbouring threads read neighbouring words (no bank
//     conflicts), both filled cooperatively with vectorized global loads;
//   - float16 inputs multiply in float32 and accumulate in float32 (the output is float32).
// Knobs: tile_y, tile_x = [blocks, threads, per thread]; tile_k = [steps, per step]; vector
// (fill lanes); unroll_k.
#ifndef TUNEFARM_TUNER_TEMPLATES_GPU_GEMM_H_
#define TUNEFARM_TUNER_TEMPLATES_GPU_GEMM_H_

#include <string>

#include "absl/status/statusor.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

void DefineGpuGemmSpace(int64_t m, int64_t n, int64_t k, ConfigSpace* space);

// C[b?, m, n] = Σ_k A[b?, m, k] · W[b?, n, k] scheduled for a GPU; batch = 0: no batch axis.
// `config` must not be null (the reference program is the CPU template's).
absl::StatusOr<Instance> InstantiateGpuGemm(const std::string& template_name, int64_t batch,
                                            int64_t m, int64_t n, int64_t k, ir::DataType dtype,
                                            const Config& config);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_GPU_GEMM_H_
