#include "rpc_server/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "rpc_server/cost_stats.h"

namespace tunefarm {
namespace {

using SteadyClock = std::chrono::steady_clock;  // CLOCK_MONOTONIC
// Bound on `number` so a near-zero-cost kernel cannot grow it forever.
constexpr int64_t kMaxNumber = 1 << 24;

// Runs `run` `number` times; returns seconds per run, or -1 with `rc` set on kernel failure.
double TimeOneRepeat(const std::function<int32_t()>& run, int64_t number, int32_t* rc) {
  auto start = SteadyClock::now();
  for (int64_t i = 0; i < number; ++i) {
    int32_t r = run();
    if (r != 0) {
      *rc = r;
      return -1;
    }
  }
  std::chrono::duration<double> elapsed = SteadyClock::now() - start;
  return elapsed.count() / static_cast<double>(number);
}

}  // namespace

TimingOutcome TimeKernel(const std::function<int32_t()>& run, const std::function<void()>& flush,
                         const v1::TimingOptions& options) {
  return TimeRepeats([&](int64_t number, int32_t* rc) { return TimeOneRepeat(run, number, rc); },
                     flush, options);
}

TimingOutcome TimeRepeats(const RepeatTimer& time_repeat, const std::function<void()>& flush,
                          const v1::TimingOptions& options) {
  TimingOutcome out;
  // Cold runs: one per repeat, each after its flush (a second run would be warm).
  int64_t number = options.flush_cache() ? 1 : std::max(1, options.number());
  const double min_repeat_s = options.flush_cache() ? 0 : options.min_repeat_ms() / 1000.0;
  if (min_repeat_s > 0) {
    // Grow `number` until one repeat lasts min_repeat_ms (as TVM: aim 1.618x past the target).
    while (number < kMaxNumber) {
      double per_run = time_repeat(number, &out.kernel_rc);
      if (per_run < 0) return out;
      if (per_run * number >= min_repeat_s) break;
      int64_t wanted =
          static_cast<int64_t>(std::ceil(min_repeat_s / std::max(per_run, 1e-9) * 1.618));
      number = std::min(kMaxNumber, std::max(number * 2, wanted));
    }
  }
  const bool adaptive = options.adaptive();
  const int min_repeat = options.repeat() > 0
                             ? options.repeat()
                             : (adaptive ? kDefaultAdaptiveMinRepeat : kDefaultRepeat);
  const double target = options.target_rel_ci() > 0 ? options.target_rel_ci() : kDefaultTargetRelCi;
  const double max_time_s =
      (options.max_time_ms() > 0 ? options.max_time_ms() : kDefaultAdaptiveMaxTimeMs) / 1000.0;
  const auto start = SteadyClock::now();
  bool converged = false;
  while (static_cast<int>(out.costs.size()) < kMaxRepeats) {
    if (options.flush_cache()) flush();
    double per_run = time_repeat(number, &out.kernel_rc);
    if (per_run < 0) return out;
    out.costs.push_back(per_run);
    if (static_cast<int>(out.costs.size()) < min_repeat) continue;
    if (!adaptive) break;
    v1::CostDistribution d = Summarize(out.costs);
    if (d.rel_ci() <= target) {
      converged = true;
      break;
    }
    std::chrono::duration<double> spent = SteadyClock::now() - start;
    if (spent.count() >= max_time_s) break;
  }
  out.distribution = Summarize(out.costs);
  out.distribution.set_converged(converged);
  out.distribution.set_number(static_cast<int32_t>(number));
  out.distribution.set_cold_cache(options.flush_cache());
  return out;
}

}  // namespace tunefarm
