// Conversions between the db/ structs and the tunefarm.v1 record/QueryBest protos: the adapter
// layer between the job service's QueryBest RPC and db::QueryBest.
#ifndef TUNEFARM_DB_RECORD_PROTO_H_
#define TUNEFARM_DB_RECORD_PROTO_H_

#include <vector>

#include "absl/status/statusor.h"
#include "db/record.h"
#include "db/tuning_log.h"
#include "proto/record.pb.h"

namespace tunefarm::db {

void ToProto(const Record& record, v1::Record* out);
// InvalidArgument: unknown error class value.
absl::StatusOr<Record> FromProto(const v1::Record& record);

// k = 0 becomes 1; other values are checked by QueryBest.
BestQuery FromProto(const v1::QueryBestRequest& request);
v1::QueryBestResponse ToProto(const std::vector<BestRecord>& best);

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_RECORD_PROTO_H_
