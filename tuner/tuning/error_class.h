// The one mapping between the error classes of the wire and of the tuning log. A worker reports
// why a measurement failed as a v1::ErrorClass (proto/measure.proto); the log stores it as a
// db::ErrorClass (db/record.h); the job service sends stored records to clients with a
// v1::RecordErrorClass (proto/record.proto). The three enums number their values differently,
// so every conversion goes through these switches, never a cast.
#ifndef TUNEFARM_TUNER_TUNING_ERROR_CLASS_H_
#define TUNEFARM_TUNER_TUNING_ERROR_CLASS_H_

#include "absl/status/statusor.h"
#include "db/record.h"
#include "proto/measure.pb.h"
#include "proto/record.pb.h"

namespace tunefarm::tuner {

// The log's class of a measurement result. INVALID_REQUEST (the farm refused the request) is
// stored as an invalid config; a value this build does not know is kUnknown.
db::ErrorClass ErrorClassOfResult(v1::ErrorClass e);

// A stored class on the wire, and back. FromRecordErrorClass: InvalidArgument for a value
// outside the enum (a newer or corrupt peer).
v1::RecordErrorClass ToRecordErrorClass(db::ErrorClass e);
absl::StatusOr<db::ErrorClass> FromRecordErrorClass(int e);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_ERROR_CLASS_H_
