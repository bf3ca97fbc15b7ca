// How configs of one workload rank against each other: the rule behind a tuning job's winner
// (tuner/tuning/winner.h) and behind the log's best-k (`tunefarm best`, QueryBest, `export`),
// so the config a job declares is the config the log answers and exports.
#ifndef TUNEFARM_DB_CONFIG_RANK_H_
#define TUNEFARM_DB_CONFIG_RANK_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/types/span.h"
#include "db/record.h"

namespace tunefarm::db {

// The median of the finite costs of `costs_s`; +inf when none is finite.
double MedianFiniteCost(absl::Span<const double> costs_s);

// One measurement's cost: the median of its timed repeats; +inf when it failed.
double RecordCost(const Record& r);

// What a config's measurements say of it.
struct ConfigScore {
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  // Its index in the config space.
  int64_t index = 0;
  // Its first successful measurement (+inf when none succeeded).
  double first_s = kInf;
  // Seconds: the median of its successful measurements after the first, or the first when no
  // later one succeeded.
  double cost_s = kInf;
  // Measurements cost_s is the median of.
  int runs = 0;
  // Measured again after its first success, successfully at least once.
  bool confirmed = false;
  // Measured again after its first success, and every one of those runs failed.
  bool failed_again = false;
  // What it ranks by (SortByRank): cost_s, or more for a config not confirmed (see there).
  double rank_s = kInf;
  // The caller's, carried through SortByRank (e.g. which record stands for the config).
  int64_t tag = 0;
};

// `costs_s`: one config's measurements in the order they were taken (+inf: failed).
ConfigScore ScoreConfig(int64_t index, absl::Span<const double> costs_s);

// Sorts configs best first and sets their rank_s. A confirmed config ranks by cost_s: its
// first success is left out, because a config is measured again when that run read among the
// fastest of hundreds, so it reads low by luck as much as by speed (the winner's curse). A
// config that failed every time it ran again ranks at twice its cost. A config measured once
// ranks by its one run. Neither ever ranks before a config measured again (for one that failed
// again: a confirmed one) whose first run was no slower than its own: that config beat it on
// equal terms and was then put to the test. So the configs a job measured again rank before
// every config it measured once. Ties go to confirmed configs, then to those that failed again,
// then to the smaller index; configs with no success come last.
void SortByRank(std::vector<ConfigScore>& configs);

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_CONFIG_RANK_H_
