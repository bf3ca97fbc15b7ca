// AutoTVM logs meet the template spaces: translated TVM configs are resolved to config indices
// of the template's space (for `tunefarm import-log`), and a TVM log's translated picks for a
// task become the first batch the tuner measures (`tunefarm tune --seed-from-log FILE`).
// The conversion of TVM's tasks, args and knobs itself is db/autotvm_tasks.h.
#ifndef TUNEFARM_TUNER_TUNING_AUTOTVM_SEED_H_
#define TUNEFARM_TUNER_TUNING_AUTOTVM_SEED_H_

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "db/autotvm_log.h"
#include "tuner/space/config_space.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// The index of the point of `space` whose knobs have the values of the JSON object
// `knobs_json` (one value per knob, written as Config::ToJson writes them; other keys are
// ignored). InvalidArgument: not a JSON object. NotFound: a knob missing, or a value that is
// not one of the knob's choices (the message names it).
absl::StatusOr<int64_t> ConfigIndexOf(const ConfigSpace& space, const std::string& knobs_json);

// A resolver for db::ImportAutotvmLog: makes the template's task for the converted workload
// (CPU space, or the cuda space for a "cuda ..." target), checks that the template computes
// exactly that workload (args and FLOP count), and finds the config's index. Errors as
// MakeTaskFor and ConfigIndexOf; Internal when the template's workload differs from the
// conversion's. Tasks are cached per workload, so a resolver serves one import (one thread).
db::AutotvmConfigResolver MakeAutotvmConfigResolver();

// What a TVM log offers a task.
struct AutotvmSeeds {
  // Config indices of the task's space, best (lowest median cost) first, distinct, at most
  // the `max` asked for.
  std::vector<int64_t> indices;
  // Valid records of the task's workload (template and args) on the task's kind of target
  // (CPU or cuda), and how many of those have no translated config.
  int64_t matching = 0;
  int64_t untranslated = 0;
};

// Reads an AutoTVM log and picks the configs of `task` it can measure: the records of the
// task's workload whose configs translate into the task's space. Bad lines and other workloads
// are skipped (import-log reports them). InvalidArgument: max < 0.
absl::StatusOr<AutotvmSeeds> SeedsFromAutotvmLog(std::istream& in, const TuneTask& task, int max);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_AUTOTVM_SEED_H_
