// The transport-free queries behind the job service's QueryBest RPC and `tunefarm export`
// (apply-history-best). The gRPC layer converts protos to these structs and statuses to
// gRPC codes; nothing here knows about transport.
#ifndef TUNEFARM_DB_QUERY_BEST_H_
#define TUNEFARM_DB_QUERY_BEST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "db/record.h"
#include "db/tuning_log.h"

namespace tunefarm::db {

// Upper bound on k accepted from remote callers.
inline constexpr int kMaxBestK = 1000;

// QueryBest RPC: the k best distinct configs of a workload on a target. With
// query.nearest_on_miss, a workload with no valid record is answered by the nearest recorded
// shape of its template (ShapeDistance in nearest_shape.h), the results marked exact=false with
// that distance. InvalidArgument: k not in [1, kMaxBestK], empty target or template, args not a
// JSON array. NotFound: nothing recorded (nor, with nearest_on_miss, a comparable shape).
// Unavailable/Internal/DataLoss: the log could not be read.
absl::StatusOr<std::vector<BestRecord>> QueryBest(const TuningLog& log, const BestQuery& query);

// `tunefarm export`: the single best config of each requested workload, in request order.
// With allow_nearest, a workload never tuned gets its nearest recorded shape (exact=false).
// InvalidArgument: empty request or target.
// NotFound: some workloads have no valid record; the message lists all of them.
absl::StatusOr<std::vector<BestRecord>> BestPerWorkload(const TuningLog& log,
                                                        absl::Span<const Workload> workloads,
                                                        const std::string& target,
                                                        const std::string& device_key,
                                                        bool allow_nearest = false);

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_QUERY_BEST_H_
