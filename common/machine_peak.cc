#include "common/machine_peak.h"

#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "common/aligned_allocator.h"

namespace tunefarm {
namespace {

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

constexpr long kIterations = 20'000'000;  // About 3 ms of FMAs at 210 GFLOP/s.
// Runs of the peak loops; the best counts (a short loop on a shared machine is easily slowed,
// never sped up: three runs left the peak 5% low often enough to read 1.05 of it).
constexpr int kPeakRuns = 9;

__attribute__((target("avx512f"))) double FmaAvx512(long iterations = kIterations) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(0.001f * i);
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.0001f);
  auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < iterations / 16; ++n) {
    // Fully unrolled so the accumulators live in registers.
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  auto t1 = std::chrono::steady_clock::now();
  __m512 sum = acc[0];
  for (int i = 1; i < 16; ++i) sum = _mm512_add_ps(sum, acc[i]);
  volatile float sink = _mm512_reduce_add_ps(sum);
  (void)sink;
  return static_cast<double>(iterations / 16) * 16 * 16 * 2 / Seconds(t0, t1) * 1e-9;
}

// 12 accumulators: enough to cover vpdpbusd's latency at two per cycle (8 reach about 0.9 of
// it), and GCC keeps them in registers (with 16 it does not, and the rate halves).
constexpr int kDotAccumulators = 12;

__attribute__((target("avx512f,avx512vnni"))) double DotAvx512Vnni() {
  __m512i acc[kDotAccumulators];
  for (int i = 0; i < kDotAccumulators; ++i) acc[i] = _mm512_set1_epi32(i);
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  const long rounds = kIterations / kDotAccumulators;
  auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < rounds; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kDotAccumulators; ++i) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
  }
  auto t1 = std::chrono::steady_clock::now();
  __m512i sum = acc[0];
  for (int i = 1; i < kDotAccumulators; ++i) sum = _mm512_add_epi32(sum, acc[i]);
  volatile int sink = _mm512_reduce_add_epi32(sum);
  (void)sink;
  // 16 lanes, 4 byte products each: 64 multiplies and 64 adds per instruction.
  return static_cast<double>(rounds) * kDotAccumulators * 128 / Seconds(t0, t1) * 1e-9;
}

// 12 accumulators on ymm: with the two constants that is 14 of the 16 registers AVX2 has
// (16 accumulators spilled, and the loop ran at half the peak: 53 GFLOP/s on a Zen 3 core
// whose kernels reached 81), and 12 in flight still cover the FMA latency at two a cycle
// (4 or 5 cycles: 8 to 10 needed).
constexpr int kYmmAccumulators = 12;

__attribute__((target("avx2,fma"))) double FmaAvx2(long iterations = kIterations) {
  __m256 acc[kYmmAccumulators];
  for (int i = 0; i < kYmmAccumulators; ++i) acc[i] = _mm256_set1_ps(0.001f * i);
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.0001f);
  const long rounds = iterations / kYmmAccumulators;
  auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < rounds; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kYmmAccumulators; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  auto t1 = std::chrono::steady_clock::now();
  __m256 sum = acc[0];
  for (int i = 1; i < kYmmAccumulators; ++i) sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return static_cast<double>(rounds) * kYmmAccumulators * 8 * 2 / Seconds(t0, t1) * 1e-9;
}

// vpmaddwd on ymm: 16 products of int16 pairs summed into 8 int32 lanes, each an exact
// uint8 × int8 product once both are widened (what our int8 kernels compute with without VNNI).
// The chains go through the multiply (the result read again as int16 pairs), so that the loop
// times the instruction and nothing is hoisted out of it. 10 chains, not 12: with 12, GCC kept
// four of them on the stack and the loop read 77 GOP/s on a Zen 3 core where a kernel reached 112.
constexpr int kMaddAccumulators = 10;

__attribute__((target("avx2"))) double MaddAvx2() {
  __m256i acc[kMaddAccumulators];
  for (int i = 0; i < kMaddAccumulators; ++i) acc[i] = _mm256_set1_epi16(static_cast<short>(i));
  const __m256i b = _mm256_set1_epi16(3);
  const long rounds = kIterations / kMaddAccumulators;
  auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < rounds; ++n) {
#pragma GCC unroll 10
    for (int i = 0; i < kMaddAccumulators; ++i) acc[i] = _mm256_madd_epi16(acc[i], b);
  }
  auto t1 = std::chrono::steady_clock::now();
  __m256i sum = acc[0];
  for (int i = 1; i < kMaddAccumulators; ++i) sum = _mm256_add_epi32(sum, acc[i]);
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sum);
  volatile int32_t sink = lanes[0];
  (void)sink;
  // 16 multiplies and 16 adds (8 lanes, each two products and their sum added) per instruction.
  return static_cast<double>(rounds) * kMaddAccumulators * 32 / Seconds(t0, t1) * 1e-9;
}

__attribute__((target("avx2"))) double ReadPass(const float* data, size_t n, float* out) {
  __m256 acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = _mm256_setzero_ps();
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i + 64 <= n; i += 64) {
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) acc[j] = _mm256_add_ps(acc[j], _mm256_load_ps(data + i + 8 * j));
  }
  auto t1 = std::chrono::steady_clock::now();
  for (int j = 1; j < 8; ++j) acc[0] = _mm256_add_ps(acc[0], acc[j]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc[0]);
  *out = lanes[0];
  return static_cast<double>(n) * sizeof(float) / Seconds(t0, t1) * 1e-9;
}

// AMX: the core has the tile and int8 instructions (CPUID leaf 7, EDX bits 24 and 25) and the
// kernel lets this process use the tile data state (arch_prctl ARCH_REQ_XCOMP_PERM, Linux 5.16+).
bool AmxInt8Usable() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  if ((edx & (1u << 24)) == 0 || (edx & (1u << 25)) == 0) return false;
  constexpr int kArchReqXcompPerm = 0x1023;
  constexpr int kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

// The tile configuration of palette 1: tiles 0-7 of 16 rows of 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Four independent tdpbusd chains (tiles 0-3 accumulate products of tiles 4-7), each
// instruction 16x16 int32 sums of 64 byte products.
__attribute__((target("amx-tile,amx-int8"))) double DotAmxInt8() {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.colsb[t] = 64;
    config.rows[t] = 16;
  }
  alignas(64) static int8_t a[16 * 64], b[16 * 64];
  alignas(64) static int32_t out[16 * 16];
  for (int i = 0; i < 16 * 64; ++i) {
    a[i] = static_cast<int8_t>(i % 7);
    b[i] = static_cast<int8_t>(i % 5);
  }
  _tile_loadconfig(&config);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, a, 64);
  _tile_loadd(5, a, 64);
  _tile_loadd(6, b, 64);
  _tile_loadd(7, b, 64);
  const long rounds = kIterations / 16;  // About 3 ms at 6 TOP/s.
  auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < rounds; ++n) {
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  }
  auto t1 = std::chrono::steady_clock::now();
  _tile_stored(0, out, 64);
  _tile_release();
  volatile int32_t sink = out[0];
  (void)sink;
  return static_cast<double>(rounds) * 4 * 16 * 16 * 64 * 2 / Seconds(t0, t1) * 1e-9;
}

}  // namespace

double MeasureFmaPeakGflops(int threads) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  double best = 0;
  for (int r = 0; r < kPeakRuns; ++r) {
    std::vector<double> rates(std::max(threads, 1));
    std::vector<std::thread> pool;
    for (size_t t = 1; t < rates.size(); ++t) {
      pool.emplace_back([&rates, t, avx512] { rates[t] = avx512 ? FmaAvx512() : FmaAvx2(); });
    }
    rates[0] = avx512 ? FmaAvx512() : FmaAvx2();
    for (std::thread& t : pool) t.join();
    double total = 0;
    for (double rate : rates) total += rate;
    best = std::max(best, total);
  }
  return best;
}

double FmaProbeGflops() {
  constexpr long kProbeIterations = kIterations / 16;  // About 0.2 ms at 210 GFLOP/s.
  return __builtin_cpu_supports("avx512f") ? FmaAvx512(kProbeIterations)
                                           : FmaAvx2(kProbeIterations);
}

double MeasureVnniPeakGops() {
  if (!__builtin_cpu_supports("avx512vnni")) return 0;
  double best = 0;
  for (int r = 0; r < kPeakRuns; ++r) best = std::max(best, DotAvx512Vnni());
  return best;
}

double MeasureMaddPeakGops() {
  if (!__builtin_cpu_supports("avx2")) return 0;
  double best = 0;
  for (int r = 0; r < kPeakRuns; ++r) best = std::max(best, MaddAvx2());
  return best;
}

double MeasureAmxInt8PeakGops() {
  static const bool usable = AmxInt8Usable();
  if (!usable) return 0;
  double best = 0;
  for (int r = 0; r < kPeakRuns; ++r) best = std::max(best, DotAmxInt8());
  return best;
}

double MeasureReadBandwidthGBs(size_t bytes) {
  const size_t n = std::max<size_t>(bytes / sizeof(float) / 64 * 64, 64);
  // Allocated as the kernels' tensors are (huge pages from 2 MiB), so that a kernel streaming
  // its operands compares with the rate that memory gives.
  float* data = static_cast<float*>(AllocateTensorStorage(n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<float>(i & 7);
  float sink = 0;
  ReadPass(data, n, &sink);  // Warm: the pages are touched, a cache-sized array is cached.
  // Passes per run: enough for about 20 ms at 100 GB/s.
  const size_t passes = std::max<size_t>(1, size_t{2'000'000'000} / (n * sizeof(float)));
  double best = 0;
  for (int r = 0; r < 3; ++r) {
    double seconds = 0;
    for (size_t p = 0; p < passes; ++p) {
      seconds += static_cast<double>(n) * sizeof(float) * 1e-9 / ReadPass(data, n, &sink);
    }
    best = std::max(best, static_cast<double>(n) * sizeof(float) * passes * 1e-9 / seconds);
  }
  std::free(data);
  volatile float keep = sink;
  (void)keep;
  return best;
}

double ReadLimitFraction(double bytes, double seconds) {
  return bytes / seconds * 1e-9 / MeasureReadBandwidthGBs(static_cast<size_t>(bytes));
}

}  // namespace tunefarm
