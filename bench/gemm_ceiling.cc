// What a plain register-tiled fp32 GEMM reaches on this core, against the FMA peak measured in
// the same run: the context of cpu_kernels' peak_frac_1024 (a tuned kernel and oneDNN both
// well below the FMA loop's rate is the machine, not the schedule, when a hand-written
// microkernel is there too).
//
//   bazel run -c opt //bench:gemm_ceiling -- [--quick]
//
// C[M×N] = A[M×K] · B, B packed in panels of the tile's columns ([N/nr][K][nr]: each k step
// loads nr contiguous floats), M = 1008, N = 1152, K = 1024 (every tile below divides them).
// Each microkernel keeps an mr × nr tile of C in zmm registers over the whole of K: per k, nr/16
// vector loads of B, mr broadcasts of A and mr·nr/16 FMAs — the structure of the generated
// space's best 1024³ configs and of BLIS's microkernels, written with intrinsics. Tiles: 6×64,
// 8×48, 12×32, 14×32, 4×96 (24 to 28 accumulators). One thread; median of the timed calls.
//
// RESULT: best_gflops (the fastest tile), best_frac (it over the FMA peak), fma_peak_gflops.
// Needs AVX-512F; elsewhere prints that and RESULT best_gflops=0.
#include <immintrin.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "common/machine_peak.h"

namespace tunefarm::bench {
namespace {

constexpr int kM = 1008, kN = 1152, kK = 1024;

template <int MR, int NV>
__attribute__((target("avx512f"))) void Gemm(const float* a, const float* packed_b, float* c) {
  constexpr int kNr = NV * 16;
  for (int jo = 0; jo < kN / kNr; ++jo) {
    const float* b = packed_b + static_cast<size_t>(jo) * kK * kNr;
    for (int io = 0; io + MR <= kM; io += MR) {
      __m512 acc[MR][NV];
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
      }
      const float* ar = a + static_cast<size_t>(io) * kK;
      for (int k = 0; k < kK; ++k) {
        // Fully unrolled, so the tile lives in registers (GCC does not unroll these itself).
        __m512 bv[NV];
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) bv[v] = _mm512_load_ps(b + k * kNr + v * 16);
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r) {
          const __m512 x = _mm512_set1_ps(ar[r * kK + k]);
#pragma GCC unroll 8
          for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(x, bv[v], acc[r][v]);
        }
      }
      float* cr = c + static_cast<size_t>(io) * kN + jo * kNr;
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) _mm512_storeu_ps(cr + r * kN + v * 16, acc[r][v]);
      }
    }
  }
}

struct Tile {
  std::string name;
  void (*fn)(const float*, const float*, float*);
};

bool HasAvx512() { return __builtin_cpu_supports("avx512f"); }

}  // namespace

int Run(bool quick) {
  const double peak = MeasureFmaPeakGflops(1);
  std::printf("FMA peak (1 thread): %.1f GFLOP/s\n", peak);
  if (!HasAvx512()) {
    std::printf("this CPU has no AVX-512F: the microkernels are not run\n");
    PrintResult({{"best_gflops", "0"}, {"fma_peak_gflops", Fixed(peak, 1)}});
    return 0;
  }
  auto alloc = [](size_t n) {
    float* p = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 7) * 0.125f;
    return p;
  };
  float* a = alloc(static_cast<size_t>(kM) * kK);
  float* b = alloc(static_cast<size_t>(kN) * kK);
  float* c = alloc(static_cast<size_t>(kM) * kN);
  const std::vector<Tile> tiles = {{"6x64", &Gemm<6, 4>},
                                   {"8x48", &Gemm<8, 3>},
                                   {"12x32", &Gemm<12, 2>},
                                   {"14x32", &Gemm<14, 2>},
                                   {"4x96", &Gemm<4, 6>}};
  const double flop = 2.0 * kM * kN * kK;
  const int repeats = quick ? 3 : 11;
  double best = 0;
  std::string best_name;
  std::printf("%-8s %10s %6s\n", "tile", "GFLOP/s", "peak");
  for (const Tile& t : tiles) {
    const double s = TimeMedian([&] { t.fn(a, b, c); }, repeats);
    const double gflops = flop / s * 1e-9;
    std::printf("%-8s %10.1f %6.2f\n", t.name.c_str(), gflops, gflops / peak);
    if (gflops > best) best = gflops, best_name = t.name;
  }
  std::free(a);
  std::free(b);
  std::free(c);
  std::printf("best tile %s\n", best_name.c_str());
  PrintResult({{"best_gflops", Fixed(best, 1)},
               {"best_frac", Fixed(best / peak)},
               {"fma_peak_gflops", Fixed(peak, 1)}});
  return 0;
}

}  // namespace tunefarm::bench
