// An application that links a kernel library made by `tunefarm export` from
// examples/programs/conv2d_winograd.te and runs the convolution the way a deployment does: the
// filter transform (the exported `_pack_Wt` function, hoisted out of the kernel when it was
// tuned) once per weight value, then the kernel on each input. It checks the output against a
// direct convolution in double precision and prints the median time of the kernel (run.sh puts
// it beside the same config measured again on the farm), e.g. `ok, median 0.9098 ms, 254.1
// GFLOP/s (direct count)` for ResNet-50's layer below, one thread, 2026-11-26 (60 trials).
// Its buffers start on 64-byte boundaries (TF_KERNEL_ALIGNMENT), as the farm's: with
// std::vector's 16-byte aligned storage the same kernel ran about 8% slower.
//
// run.sh tunes, exports, builds and runs it. By hand, for ResNet-50's 3×3 layer at 56×56:
//   g++ -O2 -I. -I<repo>/examples -DC=4 -DH=56 -DW=56 -DF=4 -DKERNEL=<symbol> \
//       -DPACK=<symbol>_pack_Wt main.cc -L. -lkernels -Wl,-rpath,. -o conv_app && ./conv_app
// C and F count blocks of 16 channels; N is 1.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "deploy_util.h"
#include "kernels.h"

#ifndef KERNEL
#error "build with -DKERNEL=<kernel symbol> -DPACK=<its _pack_Wt symbol> -DC= -DH= -DW= -DF="
#endif

using Floats = deploy::Buffer<float>;  // On TF_KERNEL_ALIGNMENT-byte boundaries (kernels.h).
using deploy::Tensor;

int main() {
  const int64_t ci = C * 16, co = F * 16;
  // X [1][C][H][W][16], the filter Wt [F][C][3][3][16 in][16 out] (conv2d_blocked.te's layout).
  Floats x(ci * H * W), wt(co * ci * 9), y(co * H * W);
  Floats u(36 * co * ci);  // The transformed filter U [6][6][F][C][16][16].
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 13) / 13.0f - 0.5f;
  for (size_t i = 0; i < wt.size(); ++i) wt[i] = static_cast<float>((i * 5) % 11) / 11.0f - 0.5f;
  std::vector<int64_t> sx = {1, C, H, W, 16}, sw = {F, C, 3, 3, 16, 16};
  std::vector<int64_t> su = {6, 6, F, C, 16, 16}, sy = {1, F, H, W, 16};
  DLTensor tx = Tensor(x, sx), tw = Tensor(wt, sw), tu = Tensor(u, su), ty = Tensor(y, sy);

  DLTensor* pack_args[] = {&tw, &tu};  // Once per weight value.
  if (int32_t rc = PACK(pack_args, 2); rc != TF_KERNEL_OK) {
    std::printf("filter transform failed with code %d\n", rc);
    return 1;
  }
  DLTensor* args[] = {&tx, &tu, &ty};
  if (int32_t rc = KERNEL(args, 3); rc != TF_KERNEL_OK) {
    std::printf("kernel failed with code %d\n", rc);
    return 1;
  }
  double worst = 0;
  for (int64_t o = 0; o < co; ++o) {
    for (int64_t r = 0; r < H; ++r) {
      for (int64_t q = 0; q < W; ++q) {
        double s = 0;
        for (int64_t c = 0; c < ci; ++c) {
          for (int64_t i = 0; i < 3; ++i) {
            for (int64_t j = 0; j < 3; ++j) {
              const int64_t h = r + i - 1, w = q + j - 1;
              if (h < 0 || h >= H || w < 0 || w >= W) continue;
              s += double(x[((c / 16 * H + h) * W + w) * 16 + c % 16]) *
                   wt[((((o / 16) * C + c / 16) * 3 + i) * 3 + j) * 256 + (c % 16) * 16 + o % 16];
            }
          }
        }
        const double got = y[((o / 16 * H + r) * W + q) * 16 + o % 16];
        worst = std::max(worst, std::fabs(s - got) / (1e-3 + 1e-3 * std::fabs(s)));
      }
    }
  }
  std::vector<double> times;
  for (int r = 0; r < 50; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    KERNEL(args, 3);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf("%s, median %.4f ms, %.1f GFLOP/s (direct count)\n", worst <= 1 ? "ok" : "WRONG",
              median * 1e3, 2.0 * co * ci * 9 * H * W / median * 1e-9);
  return worst <= 1 ? 0 : 1;
}
