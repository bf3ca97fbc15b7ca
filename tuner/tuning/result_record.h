// A measurement result as the tuning log stores it: the pure conversion from the farm's
// v1::MeasureResult to a db::Record, kept apart from the tuning loop so it can be tested alone.
#ifndef TUNEFARM_TUNER_TUNING_RESULT_RECORD_H_
#define TUNEFARM_TUNER_TUNING_RESULT_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "db/record.h"
#include "proto/measure.pb.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// What a record carries besides the result itself.
struct RecordContext {
  // The log's job id (0: none) and the tuner's version string.
  int64_t db_job_id = 0;
  std::string tuner_version;
  // The measuring worker's device, when the farm described it; its fingerprint goes into the
  // record so results of different machines under one key can be told apart.
  std::optional<v1::DeviceDescription> device;
  // When the result arrived (the tuner's clock).
  absl::Time now;
};

// The record of config `index` of `task` measured as `r`. The error class comes from
// ErrorClassOfResult; a result that claims success with no positive, finite cost is stored as
// kUnknown ("device reported no positive cost"), never as a valid measurement. The record's
// device is emulated when the result says so (the worker's word) or `context.device` does.
db::Record RecordFromResult(const TuneTask& task, int64_t index, const v1::MeasureResult& r,
                            const RecordContext& context);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_RESULT_RECORD_H_
