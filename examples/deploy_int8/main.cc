// An application that links a kernel library made by `tunefarm export` from a quantized dense
// layer (uint8 × int8 → int32: the dense_u8s8_amx template on AMX tiles, or
// examples/programs/dense_u8s8_vnni.te or dense_u8s8_avx2.te) and runs it the way a deployment
// does: the int8 weight reordered once into the VNNI layout the kernels read (W[N/16][K/4][16][4],
// as oneDNN reorders its own) and, with -DPACK (dense_u8s8_avx2.te), widened once more by the
// library's pack kernel into the int16 layout that program's kernel takes; then the kernel on
// each input. An AMX library asks Linux for the tile state itself on the first call
// (TF_KERNEL_NO_TILE_STATE where it is refused). It checks the int32 output exactly against a
// plain loop and prints the median time of the kernel (run.sh puts it beside the same config
// measured again on the farm).
//
// run.sh tunes, exports, builds and runs it. By hand:
//   g++ -O2 -I. -I<repo>/examples -DM=1024 -DN=1024 -DK=1024 -DKERNEL=<symbol> \
//       [-DPACK=<symbol>_pack_W] main.cc -L. -lkernels -Wl,-rpath,. -o int8_app && ./int8_app
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
  Buffer<uint8_t> a(static_cast<size_t>(M) * K);
  Buffer<int8_t> w(static_cast<size_t>(N) * K);  // Plain [N][K], as a framework holds it.
  Buffer<int8_t> packed(w.size());               // [N/16][K/4][16][4].
  Buffer<int32_t> c(static_cast<size_t>(M) * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>((i * 7) % 251);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<int8_t>(static_cast<int>(i * 5 % 255) - 127);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < K; ++k) {
      packed[((n / 16 * (K / 4) + k / 4) * 16 + n % 16) * 4 + k % 4] = w[n * K + k];
    }
  }
  std::fill(c.begin(), c.end(), 0x5a5a5a5a);  // Not zeros: the kernel must initialize C.
  std::vector<int64_t> sa = {M, K}, sw = {N / 16, K / 4, 16, 4}, sc = {M, N};
  DLTensor ta = Tensor(a, sa), tw = Tensor(packed, sw), tc = Tensor(c, sc);
#ifdef PACK
  // dense_u8s8_avx2.te's W16 [N/8][K/4][2][8][2], int16: computed from the weight once.
  Buffer<int16_t> widened(w.size());
  std::vector<int64_t> sw16 = {N / 8, K / 4, 2, 8, 2};
  DLTensor tw16 = Tensor(widened, sw16);
  DLTensor* pack_args[] = {&tw, &tw16};
  if (int32_t rc = PACK(pack_args, 2); rc != TF_KERNEL_OK) {
    std::printf("weight pack failed with code %d\n", rc);
    return 1;
  }
  DLTensor* args[] = {&ta, &tw16, &tc};
#else
  DLTensor* args[] = {&ta, &tw, &tc};
#endif
  if (int32_t rc = KERNEL(args, 3); rc != TF_KERNEL_OK) {
    std::printf("kernel failed with code %d%s\n", rc,
                rc == TF_KERNEL_NO_TILE_STATE ? " (the OS refused the AMX tile state)" : "");
    return 1;
  }
  int64_t wrong = 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      int64_t s = 0;
      for (int64_t k = 0; k < K; ++k) s += int64_t{a[i * K + k]} * w[j * K + k];
      if (s != c[i * N + j]) ++wrong;
    }
  }
  if (wrong != 0) {
    std::printf("wrong: %lld of %lld outputs differ from the plain loop\n",
                static_cast<long long>(wrong), static_cast<long long>(c.size()));
    return 1;
  }
  const double med = deploy::MedianMs([&] { KERNEL(args, 3); });
  std::printf("ok, median %.4f ms, %.1f GOP/s\n", med, 2.0 * M * N * K / (med * 1e6));
  return 0;
}
