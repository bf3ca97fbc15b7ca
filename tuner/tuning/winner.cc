#include "tuner/tuning/winner.h"

#include <algorithm>
#include <cmath>

namespace tunefarm::tuner {
namespace {

double Score(const RemeasuredConfig& rc) {
  if (!std::isfinite(rc.second_cost_s)) return rc.first_cost_s * 2;  // Failed again: demote.
  return 0.5 * (rc.first_cost_s + rc.second_cost_s);
}

}  // namespace

Winner PickWinner(const std::vector<RemeasuredConfig>& top) {
  const RemeasuredConfig* best = nullptr;
  for (const RemeasuredConfig& rc : top) {
    if (best == nullptr || Score(rc) < Score(*best)) best = &rc;
  }
  if (best == nullptr || !std::isfinite(Score(*best))) return Winner{};
  const double best_score = Score(*best);
  const double spread = std::isfinite(best->second_cost_s)
                            ? std::fabs(best->first_cost_s - best->second_cost_s) / best_score
                            : 0;
  const double margin = std::max(0.02, spread);
  Winner w{best->index, best_score};
  for (const RemeasuredConfig& rc : top) {
    if (Score(rc) <= best_score * (1 + margin) && rc.index < w.index)
      w = Winner{rc.index, Score(rc)};
  }
  return w;
}

}  // namespace tunefarm::tuner
