// Measures one config again, several times, on the farm: what `tunefarm measure` runs to check
// a tuning log's best time against the device today (the best of many noisy trials reads low,
// and a machine's speed drifts), and to compare it fairly with a deployed kernel run beside it.
//
//   auto again = RemeasureConfig(task, index, measurer, log, {.runs = 5, .db_job_id = id});
//   // again->median_s: the config's time now; again->costs_s: each run's.
//
// Every run is one measurement request of its own (the same artifact), recorded in the log
// like any trial: nothing measured is dropped.
#ifndef TUNEFARM_TUNER_TUNING_REMEASURE_H_
#define TUNEFARM_TUNER_TUNING_REMEASURE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "db/tuning_log.h"
#include "proto/measure.pb.h"
#include "tuner/tuning/measurer.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

struct RemeasureOptions {
  // Measurement requests, one after another (1-100).
  int runs = 5;
  // The records' job in the log (0: none) and the tuner version they carry.
  int64_t db_job_id = 0;
  std::string tuner_version;
};

struct Remeasured {
  // Each successful run's cost in seconds, in run order, and their median.
  std::vector<double> costs_s;
  double median_s = 0;
  // Every result, failed runs included (as the log holds them).
  std::vector<v1::MeasureResult> results;
};

// Builds config `index` of `task` and its reference (the unscheduled program), then
// measures it `runs` times through `measurer`, recording each result in `log` (may be null).
// InvalidArgument: runs outside 1-100. FailedPrecondition: the config or the reference does not
// build. Unavailable and the like: the farm's error, after what arrived was recorded.
// Internal: no run succeeded (the first error message is given).
absl::StatusOr<Remeasured> RemeasureConfig(const TuneTask& task, int64_t index, Measurer& measurer,
                                           db::TuningLog* log, const RemeasureOptions& options);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_REMEASURE_H_
