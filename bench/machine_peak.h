// The machine's limits, measured in the benchmark's own run so ratios to them are honest: the
// FMA peak of one core (a loop of independent fused multiply-adds at the widest vector width
// the core has) and the read bandwidth of one core from memory.
#ifndef TUNEFARM_BENCH_MACHINE_PEAK_H_
#define TUNEFARM_BENCH_MACHINE_PEAK_H_

namespace tunefarm::bench {

// fp32 GFLOP/s of one core: 16 independent accumulators of vfmadd231ps on zmm (ymm without
// AVX-512), the best of a few runs of about 50 ms.
double MeasureFmaPeakGflops();

// GB/s one core reads from a 256 MiB array (far beyond the caches), the best of a few passes.
double MeasureReadBandwidthGBs();

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_MACHINE_PEAK_H_
