#include "tuner/tuning/winner.h"

#include <cmath>

#include "db/config_rank.h"

namespace tunefarm::tuner {

Winner PickWinner(const std::map<int64_t, std::vector<double>>& costs_by_config) {
  std::vector<db::ConfigScore> scores;
  for (const auto& [index, costs_s] : costs_by_config) {
    scores.push_back(db::ScoreConfig(index, costs_s));
  }
  db::SortByRank(scores);
  if (scores.empty() || !std::isfinite(scores.front().rank_s)) return Winner{};
  return Winner{scores.front().index, scores.front().cost_s};
}

}  // namespace tunefarm::tuner
