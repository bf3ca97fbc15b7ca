// The winner of a tuning session: after the best configs are measured a second time, the one
// that is fastest beyond noise. A pure function of the two measurements, so the rule is tested
// on its own (winner_test) rather than through a whole session.
#ifndef TUNEFARM_TUNER_TUNING_WINNER_H_
#define TUNEFARM_TUNER_TUNING_WINNER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tunefarm::tuner {

// One of the top configs, measured twice.
struct RemeasuredConfig {
  // Its index in the task's config space, and its knobs as JSON.
  int64_t index = 0;
  std::string config;
  // Median cost of the first measurement and of the re-measurement (seconds; inf = failed).
  // The winner is chosen by their mean.
  double first_cost_s = 0;
  double second_cost_s = 0;
  // Workers of the two runs; different whenever the farm had a second live device.
  std::string first_worker;
  std::string second_worker;
};

struct Winner {
  // The winning config's index; -1 when no config has a finite score.
  int64_t index = -1;
  // Its score: the mean of its two costs (seconds).
  double cost_s = 0;
};

// A config's score is the mean of its two measurements, so one lucky or one disturbed run does
// not decide alone; a config whose second run failed scores twice its first cost. Configs
// within the noise margin of the best score tie; the margin is 2% or the disagreement between
// the best config's own two runs, whichever is larger. The smallest index wins a tie, so a job
// repeats its answer.
Winner PickWinner(const std::vector<RemeasuredConfig>& top);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_WINNER_H_
