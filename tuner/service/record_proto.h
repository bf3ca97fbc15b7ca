// Conversions between the db/ structs and the tunefarm.v1 record/QueryBest protos: the job
// service's adapter between its QueryBest RPC and db::QueryBest (db/ itself knows no RPC).
#ifndef TUNEFARM_TUNER_SERVICE_RECORD_PROTO_H_
#define TUNEFARM_TUNER_SERVICE_RECORD_PROTO_H_

#include <vector>

#include "absl/status/statusor.h"
#include "db/record.h"
#include "db/tuning_log.h"
#include "proto/record.pb.h"

namespace tunefarm::tuner {

void ToProto(const db::Record& record, v1::Record* out);
// InvalidArgument: unknown error class value.
absl::StatusOr<db::Record> FromProto(const v1::Record& record);

// k = 0 becomes 1; other values are checked by QueryBest.
db::BestQuery FromProto(const v1::QueryBestRequest& request);
v1::QueryBestResponse ToProto(const std::vector<db::BestRecord>& best);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SERVICE_RECORD_PROTO_H_
