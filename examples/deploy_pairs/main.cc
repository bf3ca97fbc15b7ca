// An application that links a kernel library made by `tunefarm export` from
// examples/programs/dense_pairs.te (a dense layer of 8 or 16 outputs, C = A·Wᵀ) and runs it the
// way a deployment does: the weight, held as a framework holds it ([N][K]), reordered once into
// the pairs layout the kernel reads (W[K/2][N/8][8][2]: input 2k + t of output n at
// [k][n / 8][n % 8][t]), then the kernel on each input. It checks every output against a plain
// loop in double precision and prints the median time of the kernel (run.sh puts it beside the
// same config measured again on the farm).
//
// run.sh tunes, exports, builds and runs it. By hand:
//   g++ -O2 -I. -I<repo>/examples -DM=512 -DN=16 -DK=512 -DKERNEL=<symbol> main.cc \
//       -L. -lkernels -Wl,-rpath,. -o pairs_app && ./pairs_app
// N a multiple of 8, K even.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "deploy_util.h"
#include "kernels.h"

#ifndef KERNEL
#error "build with -DKERNEL=<kernel symbol> -DM= -DN= -DK="
#endif

using deploy::Buffer;
using deploy::Tensor;

int main() {
  Buffer<float> a(static_cast<size_t>(M) * K);
  Buffer<float> w(static_cast<size_t>(N) * K);       // Plain [N][K], as a framework holds it.
  Buffer<float> pairs(w.size());                     // [K/2][N/8][8][2].
  Buffer<float> c(static_cast<size_t>(M) * N, NAN);  // Not zeros: the kernel must write C.
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 13) / 13.0f - 0.5f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 5) % 11) / 11.0f - 0.5f;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < K; ++k) pairs[((k / 2) * N + n) * 2 + k % 2] = w[n * K + k];
  }
  std::vector<int64_t> sa = {M, K}, sw = {K / 2, N / 8, 8, 2}, sc = {M, N};
  DLTensor ta = Tensor(a, sa), tw = Tensor(pairs, sw), tc = Tensor(c, sc);
  DLTensor* args[] = {&ta, &tw, &tc};
  if (int32_t rc = KERNEL(args, 3); rc != TF_KERNEL_OK) {
    std::printf("kernel failed with code %d\n", rc);
    return 1;
  }
  int64_t wrong = 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += double(a[i * K + k]) * w[j * K + k];
      const double got = c[i * N + j];
      if (!(std::fabs(s - got) <= 1e-4 + 1e-4 * std::fabs(s))) ++wrong;
    }
  }
  if (wrong != 0) {
    std::printf("wrong: %lld of %lld outputs differ from the plain loop\n",
                static_cast<long long>(wrong), static_cast<long long>(c.size()));
    return 1;
  }
  const double med = deploy::MedianMs([&] { KERNEL(args, 3); });
  std::printf("ok, median %.4f ms, %.1f GFLOP/s\n", med, 2.0 * M * N * K / (med * 1e6));
  return 0;
}
