#include "tuner/tuning/winner.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tunefarm::tuner {
namespace {

double Score(const RemeasuredConfig& rc) {
  if (!std::isfinite(rc.remeasured_cost_s)) return rc.first_cost_s * 2;  // Failed again: demote.
  return rc.remeasured_cost_s;
}

}  // namespace

double MedianFiniteCost(const std::vector<double>& costs_s) {
  std::vector<double> finite;
  for (double c : costs_s) {
    if (std::isfinite(c)) finite.push_back(c);
  }
  if (finite.empty()) return std::numeric_limits<double>::infinity();
  std::sort(finite.begin(), finite.end());
  const size_t n = finite.size();
  return n % 2 == 1 ? finite[n / 2] : 0.5 * (finite[n / 2 - 1] + finite[n / 2]);
}

Winner PickWinner(const std::vector<RemeasuredConfig>& top) {
  Winner w;
  double best = std::numeric_limits<double>::infinity();
  for (const RemeasuredConfig& rc : top) {
    const double s = Score(rc);
    if (!std::isfinite(s)) continue;
    if (s < best || (s == best && rc.index < w.index)) {
      best = s;
      w = Winner{rc.index, s};
    }
  }
  return w;
}

}  // namespace tunefarm::tuner
