// The machine's limits, measured where they are used so ratios to them are honest: the FMA
// peak of one core (a loop of independent fused multiply-adds at the widest vector width the
// core has) and the read bandwidth of one core from memory (the benchmarks' peak fractions, and
// `compile`'s cost of streaming a model's weights).
#ifndef TUNEFARM_COMMON_MACHINE_PEAK_H_
#define TUNEFARM_COMMON_MACHINE_PEAK_H_

#include <cstddef>

namespace tunefarm {

// fp32 GFLOP/s of `threads` cores together: on each, independent accumulators of vfmadd231ps
// (16 on zmm; 12 on ymm without AVX-512, as many as its 16 registers hold), all threads at once;
// the best of nine runs of about 3 ms. Measured, not multiplied: virtual cores may share one
// physical core's FMA pipes (on the development machine two threads reach about 1.2 times one).
double MeasureFmaPeakGflops(int threads = 1);

// fp32 GFLOP/s of one short run (about 0.2 ms) of the same loop on the calling thread: not the
// peak (one run, easily slowed), but a probe of the state a shared machine is in at that moment
// (the benchmarks take one after each round of timings, to split the rounds by it).
double FmaProbeGflops();

// int8 GOP/s (a multiply and an add each) of one core: 12 independent accumulators of
// vpdpbusd on zmm, the best of nine runs; 0 without AVX-512 VNNI.
double MeasureVnniPeakGops();

// int8 GOP/s of one core without VNNI: 10 independent chains of vpmaddwd on ymm (16 products
// of int16 pairs, each an exact uint8 × int8 product once widened), the best of nine runs; 0
// without AVX2.
double MeasureMaddPeakGops();

// int8 GOP/s of one core's AMX unit (the int8 limit of a core that has one: the libraries'
// int8 kernels use it): four independent chains of tdpbusd on 16x64-byte tiles, the best of
// nine runs; 0 without AMX-INT8 or when the kernel does not grant the tile state
// (arch_prctl ARCH_REQ_XCOMP_PERM, which this requests for the process).
double MeasureAmxInt8PeakGops();

// GB/s one core reads from an array of `bytes` (default 256 MiB, far beyond the caches), read
// over and over for at least about 20 ms, the best of a few such runs. A kernel called again and
// again on a working set of that size reads it from wherever it fits (L2, L3 or memory), so this
// at the kernel's own bytes is the limit of a memory-bound kernel (a batch-1 GEMV).
double MeasureReadBandwidthGBs(size_t bytes = size_t{256} << 20);

// How close a kernel that must read `bytes` in `seconds` comes to that limit: its read rate
// over MeasureReadBandwidthGBs(bytes).
double ReadLimitFraction(double bytes, double seconds);

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_MACHINE_PEAK_H_
