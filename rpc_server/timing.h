// The timing harness, in the style of TVM's time_evaluator: `number` runs per repeat, grown
// until a repeat lasts `min_repeat_ms`; `repeat` repeats (or, in adaptive mode, until the
// median's confidence interval is tight enough); monotonic clock. With `flush_cache` (TVM's
// enable_cpu_cache_flush) every timed run is one run after a flush: `number` stays 1, as a
// second run in a repeat would find the caches warm again. The caller has done the warm-up run.
#ifndef TUNEFARM_RPC_SERVER_TIMING_H_
#define TUNEFARM_RPC_SERVER_TIMING_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "proto/measure.pb.h"

namespace tunefarm {

struct TimingOutcome {
  // Seconds per run, one entry per repeat.
  std::vector<double> costs;
  v1::CostDistribution distribution;
  // First non-zero return code of the kernel during timing (0 when every run succeeded).
  int32_t kernel_rc = 0;
};

// Defaults applied to zero fields of TimingOptions.
inline constexpr int kDefaultRepeat = 3;
inline constexpr int kDefaultAdaptiveMinRepeat = 5;
inline constexpr double kDefaultTargetRelCi = 0.02;
inline constexpr int kDefaultAdaptiveMaxTimeMs = 2000;
// Hard caps, whatever the request asks.
inline constexpr int kMaxRepeats = 10000;

// Times `run` (one kernel call returning its TF_KERNEL_* code) per `options` on the host's
// monotonic clock; with options.flush_cache, `flush` (e.g. FlushArguments over the call's
// tensors) runs before every timed run, outside the timed interval.
TimingOutcome TimeKernel(const std::function<int32_t()>& run, const std::function<void()>& flush,
                         const v1::TimingOptions& options);

// One repeat: runs the kernel `number` times and returns the seconds per run, or a negative
// value with `*rc` set to the failure code (kept as TimingOutcome::kernel_rc).
using RepeatTimer = std::function<double(int64_t number, int32_t* rc)>;

// The device-independent loop behind TimeKernel, for devices with their own clock (CUDA
// events): grows `number`, repeats (adaptive or not) and summarizes. When options.flush_cache
// is set, `number` is 1 and `flush` runs before each counted repeat, outside the timed interval.
TimingOutcome TimeRepeats(const RepeatTimer& time_repeat, const std::function<void()>& flush,
                          const v1::TimingOptions& options);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_TIMING_H_
