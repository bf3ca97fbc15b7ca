// Shared helpers of the benchmarks: --quick parsing, robust timing and the RESULT line.
#ifndef TUNEFARM_BENCH_BENCH_UTIL_H_
#define TUNEFARM_BENCH_BENCH_UTIL_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tunefarm::bench {

// The benchmark itself, defined once per benchmark binary whose only option is --quick (a
// shorter run that still exercises every path). bench_main.cc's main() calls it; it returns
// the process exit code.
int Run(bool quick);

// True when argv holds --quick.
inline bool QuickMode(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) return true;
  }
  return false;
}

inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The p-quantile (0..1) of `v`, nearest rank; 0 for an empty list.
inline double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

// A distribution-free confidence interval of the median of `v` (its order statistics: the
// median lies between the j-th smallest and the j-th largest with probability at least
// `confidence`, for the largest such j of the Binomial(n, 1/2) law; 25 values at 95%: the 8th
// and the 18th). Fewer values than any j reaches: their smallest and largest (5 values cover
// the median with probability 15/16). {0, 0} for an empty list.
struct Interval {
  double lo = 0, hi = 0;
};
inline Interval MedianInterval(std::vector<double> v, double confidence = 0.95) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  // P(Binomial(n, 1/2) <= k), summed in log space so that n in the thousands stays finite.
  const double tail = (1 - confidence) / 2;
  double cdf = 0;
  size_t j = 0;  // The median is below v[j] (0-based) with probability cdf(j) ≤ tail.
  for (size_t k = 0; k < n / 2; ++k) {
    const double log_pmf = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) -
                           static_cast<double>(n) * std::log(2.0);
    cdf += std::exp(log_pmf);
    if (cdf > tail) break;
    j = k + 1;
  }
  if (j == 0) return {v.front(), v.back()};
  return {v[j - 1], v[n - j]};
}

// Median seconds of one call of `fn`, over `repeats` timed calls after one warm-up call.
inline double TimeMedian(const std::function<void()>& fn, int repeats) {
  fn();
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return Median(t);
}

// Kernels timed in turn: rounds in which every one of `fns` is timed once (TimeMedian with
// `repeats`), in order and, every other round, in reverse order (so that none always runs
// right after another's cache traffic). At least `rounds` rounds, and more until the rounds
// have spanned `min_seconds` of wall time (at most kMaxRoundsInTurn rounds): a machine whose
// speed moves within seconds (a shared host) is then sampled across its states instead of in
// the few milliseconds a short kernel's rounds take. Noise that comes and goes hits the kernels
// alike, since each round times them back to back.
inline constexpr int kMaxRoundsInTurn = 4000;
struct InTurn {
  std::vector<double> seconds;  // Each kernel's median over the rounds.
  // Each kernel's time over the first one's in the same round, the median over the rounds:
  // the ratio of two kernels as they ran side by side (fns[0]'s entry is 1).
  std::vector<double> over_first;
  std::vector<Interval> over_first_interval;          // Each one's 95% interval (MedianInterval).
  std::vector<std::vector<double>> round_over_first;  // The same per round, before the median.
  std::vector<double> probe;  // The probe's reading after each round (empty without one).
  int rounds = 0;
  double wall_seconds = 0;
};
// With `probe`, it is called after each round and its reading kept (SplitByState).
inline InTurn TimeInTurn(const std::vector<std::function<void()>>& fns, int repeats, int rounds,
                         double min_seconds = 0, const std::function<double()>& probe = nullptr) {
  InTurn out;
  if (fns.empty()) return out;
  std::vector<std::vector<double>> t(fns.size()), ratio(fns.size());
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (int r = 0; r < kMaxRoundsInTurn && (r < rounds || elapsed() < min_seconds); ++r) {
    std::vector<double> round(fns.size());
    for (size_t j = 0; j < fns.size(); ++j) {
      const size_t i = r % 2 == 0 ? j : fns.size() - 1 - j;
      round[i] = TimeMedian(fns[i], repeats);
    }
    for (size_t i = 0; i < fns.size(); ++i) {
      t[i].push_back(round[i]);
      ratio[i].push_back(round[0] > 0 ? round[i] / round[0] : 0);
    }
    if (probe) out.probe.push_back(probe());
    out.rounds = r + 1;
  }
  out.wall_seconds = elapsed();
  for (size_t i = 0; i < fns.size(); ++i) {
    out.seconds.push_back(Median(t[i]));
    std::vector<double> timed;
    for (double x : ratio[i]) {
      if (x > 0) timed.push_back(x);
    }
    out.over_first.push_back(timed.empty() ? 0 : Median(timed));
    out.over_first_interval.push_back(MedianInterval(timed));
  }
  out.round_over_first = std::move(ratio);
  return out;
}

// The rounds of a TimeInTurn with a probe, split by the machine's state: those whose probe read
// at least kFastState of the fastest reading, and those under kSlowState of it (rounds between
// the two are in neither). A shared host's speed moves between two states within seconds; a
// kernel that loses more than another in the slow one shows it here as two ratios.
inline constexpr double kFastState = 0.85, kSlowState = 0.7;
struct ByState {
  int fast_rounds = 0, slow_rounds = 0;
  double fast_ratio = 0, slow_ratio = 0;  // Kernel i's time over the first's: medians.
};
inline ByState SplitByState(const InTurn& t, size_t i) {
  ByState out;
  if (t.probe.empty() || i >= t.round_over_first.size()) return out;
  const double fastest = *std::max_element(t.probe.begin(), t.probe.end());
  std::vector<double> fast, slow;
  for (size_t r = 0; r < t.probe.size() && r < t.round_over_first[i].size(); ++r) {
    const double x = t.round_over_first[i][r];
    if (x <= 0) continue;
    if (t.probe[r] >= kFastState * fastest) fast.push_back(x);
    if (t.probe[r] < kSlowState * fastest) slow.push_back(x);
  }
  out.fast_rounds = static_cast<int>(fast.size());
  out.slow_rounds = static_cast<int>(slow.size());
  out.fast_ratio = fast.empty() ? 0 : Median(fast);
  out.slow_ratio = slow.empty() ? 0 : Median(slow);
  return out;
}

// The wall time a benchmark's side-by-side timing spans at least (TimeInTurn's min_seconds):
// long enough to sample a shared machine whose speed moves twofold within seconds.
inline double SideBySideSeconds(bool quick) { return quick ? 0.25 : 2.0; }

// Two kernels timed side by side (TimeInTurn).
struct SidePair {
  double a_s = 0, b_s = 0;  // Each one's median seconds.
  double b_over_a = 0;      // b's time over a's in the same round, the median over the rounds.
};
inline SidePair TimeSideBySide(const std::function<void()>& a, const std::function<void()>& b,
                               int repeats, int rounds = 5, double min_seconds = 0) {
  const InTurn t = TimeInTurn({a, b}, repeats, rounds, min_seconds);
  return {t.seconds[0], t.seconds[1], t.over_first[1]};
}

// Prints `RESULT k=v k=v ...`, the last line every benchmark prints.
inline void PrintResult(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string line = "RESULT";
  for (const auto& [k, v] : kv) line += " " + k + "=" + v;
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

inline std::string Fixed(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_BENCH_UTIL_H_
