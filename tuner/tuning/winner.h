// The winner of a tuning session: after the best configs are measured again, in rounds, the one
// whose re-measurements are fastest, by the tuning log's ranking rule (db/config_rank.h). A pure
// function of the measurements, so the rule is tested on its own (winner_test) rather than through
// a whole session.
#ifndef TUNEFARM_TUNER_TUNING_WINNER_H_
#define TUNEFARM_TUNER_TUNING_WINNER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tunefarm::tuner {

// One of the top configs: its first measurement and its re-measurements.
struct RemeasuredConfig {
  // Its index in the task's config space, and its knobs as JSON.
  int64_t index = 0;
  std::string config;
  // Its score when it was put in the top, in seconds: its first measurement's median in a fresh
  // session, the log's rule over its history in a resumed one.
  double first_cost_s = 0;
  // Each re-measurement round's median cost (inf: that run failed), in round order, and the
  // median of the finite ones (inf when none is).
  std::vector<double> remeasured_costs_s;
  double remeasured_cost_s = 0;
  // Workers of the first measurement and of the first re-measurement; different whenever the
  // farm had a second live device (later rounds alternate between devices the same way).
  std::string first_worker;
  std::string second_worker;
};

struct Winner {
  // The winning config's index; -1 when no config has a finite score.
  int64_t index = -1;
  // Its score (seconds): the median of its re-measurements (its first cost when all of them
  // failed).
  double cost_s = 0;
};

// The winner among every config a session has measured (its resumed history included), ranked
// by the log's rule (db::SortByRank) over each config's measurements in the order they were
// taken, so the log's best-k and `export` answer the same config. A config measured again scores
// the median of its re-measurements, its first measurement left out (the top configs are the
// ones whose first runs read fastest among hundreds, so those runs read low by luck as much as
// by speed: the winner's curse); one whose re-measurements all failed ranks at twice its first
// cost; a config measured once never ranks before a config measured again whose first run was
// no slower. The lowest score wins, the smaller index on an exact tie; there is no noise margin,
// which would hand the win to a slower config on exactly the shapes where kernels tie with the
// vendor library. `costs_by_config`: config index -> its costs in order (+inf: failed).
Winner PickWinner(const std::map<int64_t, std::vector<double>>& costs_by_config);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_WINNER_H_
