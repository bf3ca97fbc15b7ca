#include "rpc_server/cost_stats.h"

#include <algorithm>
#include <cmath>

namespace tunefarm {
namespace {

double MedianOfSorted(const std::vector<double>& v) {
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

v1::CostDistribution Summarize(std::vector<double> costs) {
  v1::CostDistribution d;
  if (costs.empty()) return d;
  std::sort(costs.begin(), costs.end());
  const size_t n = costs.size();
  double sum = 0;
  for (double c : costs) sum += c;
  double mean = sum / n;
  double var = 0;
  for (double c : costs) var += (c - mean) * (c - mean);
  d.set_median(MedianOfSorted(costs));
  d.set_mean(mean);
  d.set_stddev(n > 1 ? std::sqrt(var / (n - 1)) : 0);
  d.set_min(costs.front());
  d.set_max(costs.back());
  double half = 0.98 * std::sqrt(static_cast<double>(n));
  long lo = static_cast<long>(std::floor(n / 2.0 - half));
  long hi = static_cast<long>(std::ceil(n / 2.0 + half));
  lo = std::clamp<long>(lo, 0, static_cast<long>(n) - 1);
  hi = std::clamp<long>(hi, 0, static_cast<long>(n) - 1);
  d.set_ci_low(costs[lo]);
  d.set_ci_high(costs[hi]);
  d.set_rel_ci(d.median() > 0 ? (d.ci_high() - d.ci_low()) / (2 * d.median()) : 0);
  return d;
}

double RobustCv(std::vector<double> samples) {
  if (samples.size() < 2) return 0;
  std::sort(samples.begin(), samples.end());
  double median = MedianOfSorted(samples);
  if (median <= 0) return 0;
  std::vector<double> dev;
  dev.reserve(samples.size());
  for (double s : samples) dev.push_back(std::fabs(s - median));
  std::sort(dev.begin(), dev.end());
  return 1.4826 * MedianOfSorted(dev) / median;
}

}  // namespace tunefarm
