// cuBLAS for the GPU benchmarks' baseline, loaded at run time (dlopen), like the CUDA driver:
// the benchmark builds everywhere and says why it skips where there is no cuBLAS. Types and
// enum values are declared here from cublas_api.h / library_types.h (CUDA 12/13).
#ifndef TUNEFARM_BENCH_CUBLAS_H_
#define TUNEFARM_BENCH_CUBLAS_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace tunefarm::bench {

class Cublas {
 public:
  // libcublas.so.13, .so.12, .so.11 or .so (or $TUNEFARM_LIBCUBLAS); creates a handle on the
  // current context. Unavailable: no library or cublasCreate failed.
  static absl::StatusOr<Cublas*> Load();

  // Row-major C[m, n] = A[m, k] · W[n, k]ᵀ (dense), device pointers. fp16: A and W half,
  // C float32, float32 accumulation on tensor cores (cublasGemmEx). Internal: a cuBLAS error.
  absl::Status Dense(bool fp16, int m, int n, int k, uint64_t a, uint64_t w, uint64_t c) const;

 private:
  Cublas() = default;
  void* handle_ = nullptr;
  int (*create_)(void** handle) = nullptr;
  int (*sgemm_)(void* handle, int transa, int transb, int m, int n, int k, const float* alpha,
                const float* a, int lda, const float* b, int ldb, const float* beta, float* c,
                int ldc) = nullptr;
  int (*gemm_ex_)(void* handle, int transa, int transb, int m, int n, int k, const void* alpha,
                  const void* a, int a_type, int lda, const void* b, int b_type, int ldb,
                  const void* beta, void* c, int c_type, int ldc, int compute_type,
                  int algo) = nullptr;
};

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_CUBLAS_H_
