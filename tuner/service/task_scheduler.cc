#include "tuner/service/task_scheduler.h"

#include <cmath>
#include <limits>

namespace tunefarm::tuner {

TaskScheduler::TaskScheduler(std::vector<double> weights, int window)
    : weights_(std::move(weights)),
      window_(window),
      best_(weights_.size()),
      trials_(weights_.size()) {
  for (double& w : weights_) {
    if (!(w > 0)) w = 1;
  }
}

void TaskScheduler::Record(int task, double best_cost_s, int trials) {
  best_[task].push_back(best_cost_s);
  trials_[task].push_back((trials_[task].empty() ? 0 : trials_[task].back()) + trials);
}

double TaskScheduler::Gain(int task) const {
  const auto& b = best_[task];
  const auto& t = trials_[task];
  double now = b.back();
  if (!std::isfinite(now)) return std::numeric_limits<double>::infinity();  // No valid config.
  // Backward difference over the last `window_` rounds.
  size_t back = b.size() > static_cast<size_t>(window_) ? b.size() - 1 - window_ : 0;
  double before = b[back];
  int spent = t.back() - (back == 0 && b.size() == 1 ? 0 : t[back]);
  double slope = 0;
  if (std::isfinite(before) && spent > 0) slope = (before - now) / spent;
  // Optimism: a task whose rate dropped to zero may still improve by a small fraction of its
  // cost per round (Ansor's β term); scaled by 1/rounds so stale tasks fade.
  double optimistic = 0.05 * now / (static_cast<double>(t.back()) + 1);
  return weights_[task] * std::max(slope, optimistic);
}

int TaskScheduler::Pick(const std::vector<bool>& done) const {
  int best = -1;
  double best_gain = -1;
  for (size_t i = 0; i < weights_.size(); ++i) {
    if (done[i]) continue;
    if (best_[i].empty()) return static_cast<int>(i);  // Warm-up round first.
    double g = Gain(static_cast<int>(i));
    if (g > best_gain) {
      best_gain = g;
      best = static_cast<int>(i);
    }
  }
  return best;
}

}  // namespace tunefarm::tuner
