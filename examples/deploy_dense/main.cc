// A tiny application that links a kernel library made by `tunefarm export` and runs its dense
// kernel: C[M, N] = A[M, K] · W[N, K]ᵀ. It checks the result against a plain loop and prints
// the median time and GFLOP/s.
//
//   tunefarm export --db tuning.db --workload 'dense:[1024,1024,1024,"float32"]' \
//       --target llvm -o libkernels.so
//   g++ -O2 -I. main.cc -L. -lkernels -Wl,-rpath,. -o dense_app && ./dense_app
//
// Build with -DM=.. -DN=.. -DK=.. -DKERNEL=dense_M_N_K_float32 for another shape.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels.h"

#ifndef M
#define M 1024
#define N 1024
#define K 1024
#define KERNEL dense_1024_1024_1024_float32
#endif

namespace {

// Storage on TF_KERNEL_ALIGNMENT-byte boundaries (kernels.h), as the farm's buffers.
using Floats = std::vector<float, tf_kernel_allocator<float>>;

DLTensor Tensor(Floats& data, std::vector<int64_t>& shape) {
  DLTensor t{};
  t.data = data.data();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = shape.data();
  return t;
}

}  // namespace

int main() {
  Floats a(M * K), w(N * K), c(M * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 13) / 13.0f - 0.5f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 5) % 11) / 11.0f - 0.5f;
  std::vector<int64_t> sa = {M, K}, sw = {N, K}, sc = {M, N};
  DLTensor ta = Tensor(a, sa), tw = Tensor(w, sw), tc = Tensor(c, sc);
  DLTensor* args[] = {&ta, &tw, &tc};

  int32_t rc = KERNEL(args, 3);
  if (rc != TF_KERNEL_OK) {
    std::printf("kernel failed with code %d\n", rc);
    return 1;
  }
  double worst = 0;
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(a[i * K + k]) * w[j * K + k];
      worst = std::max(worst, std::fabs(s - c[i * N + j]) / (1e-3 + 1e-3 * std::fabs(s)));
    }
  }
  std::vector<double> times;
  for (int r = 0; r < 20; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    KERNEL(args, 3);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2];
  std::printf("%s: %s, median %.3f ms, %.1f GFLOP/s\n", tunefarm_kernel_names(),
              worst <= 1 ? "ok" : "WRONG", median * 1e3, 2.0 * M * N * K / median * 1e-9);
  return worst <= 1 ? 0 : 1;
}
