#include "tuner/tuning/winner.h"

#include <cmath>

#include "db/config_rank.h"

namespace tunefarm::tuner {

Winner PickWinner(const std::vector<RemeasuredConfig>& top) {
  std::vector<db::ConfigScore> scores;
  for (const RemeasuredConfig& rc : top) {
    std::vector<double> costs_s = {rc.first_cost_s};
    costs_s.insert(costs_s.end(), rc.remeasured_costs_s.begin(), rc.remeasured_costs_s.end());
    scores.push_back(db::ScoreConfig(rc.index, costs_s));
  }
  db::SortByRank(scores);
  if (scores.empty() || !std::isfinite(scores.front().rank_s)) return Winner{};
  return Winner{scores.front().index, scores.front().cost_s};
}

}  // namespace tunefarm::tuner
