// Shared helpers of the benchmarks: --quick parsing, robust timing and the RESULT line.
#ifndef TUNEFARM_BENCH_BENCH_UTIL_H_
#define TUNEFARM_BENCH_BENCH_UTIL_H_

#include <algorithm>
#include <chrono>
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

// Kernels timed in turn: `rounds` rounds, each timing every one of `fns` in order (TimeMedian
// with `repeats`); returns the median over the rounds of each. Noise that comes and goes on a
// shared machine then hits them alike instead of whichever happened to run during it.
inline std::vector<double> TimeInTurn(const std::vector<std::function<void()>>& fns, int repeats,
                                      int rounds) {
  std::vector<std::vector<double>> t(fns.size());
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < fns.size(); ++i) t[i].push_back(TimeMedian(fns[i], repeats));
  }
  std::vector<double> medians;
  for (std::vector<double>& ti : t) medians.push_back(Median(ti));
  return medians;
}

// Two kernels timed side by side (TimeInTurn); returns the median of each.
inline std::pair<double, double> TimeSideBySide(const std::function<void()>& a,
                                                const std::function<void()>& b, int repeats,
                                                int rounds = 5) {
  const std::vector<double> t = TimeInTurn({a, b}, repeats, rounds);
  return {t[0], t[1]};
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
