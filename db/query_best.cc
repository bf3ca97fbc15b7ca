#include "db/query_best.h"

#include <limits>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "db/nearest_shape.h"

namespace tunefarm::db {

absl::StatusOr<std::vector<BestRecord>> QueryBest(const TuningLog& log, const BestQuery& query) {
  if (query.k < 1 || query.k > kMaxBestK) {
    return absl::InvalidArgumentError(
        absl::StrCat("QueryBest: k must be in [1, ", kMaxBestK, "], got ", query.k));
  }
  // Callers over the wire may send args with spaces: canonicalize before hashing.
  absl::StatusOr<Workload> workload =
      Workload::Make(query.workload.template_name, query.workload.args, query.workload.flop);
  if (!workload.ok()) return workload.status();
  BestQuery exact = query;
  exact.workload = *std::move(workload);
  exact.nearest_on_miss = false;
  absl::StatusOr<std::vector<BestRecord>> best = log.BestK(exact);
  if (!query.nearest_on_miss || !absl::IsNotFound(best.status())) return best;

  // The nearest recorded shape of the same template with valid records on the target/device.
  absl::StatusOr<std::vector<Workload>> shapes =
      log.RecordedShapes(exact.workload.template_name, exact.target, exact.device_key);
  if (!shapes.ok()) return shapes.status();
  const Workload* nearest = nullptr;
  double nearest_distance = std::numeric_limits<double>::infinity();
  for (const Workload& w : *shapes) {
    std::optional<double> d = ShapeDistance(exact.workload.args, w.args);
    if (d.has_value() && *d < nearest_distance) {
      nearest_distance = *d;
      nearest = &w;
    }
  }
  if (nearest == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(best.status().message(), " (nor a comparable shape of the same template)"));
  }
  BestQuery near = exact;
  near.workload = *nearest;
  best = log.BestK(near);
  if (!best.ok()) return best.status();
  for (BestRecord& b : *best) {
    b.exact = false;
    b.distance = nearest_distance;
  }
  return best;
}

absl::StatusOr<std::vector<BestRecord>> BestPerWorkload(const TuningLog& log,
                                                        absl::Span<const Workload> workloads,
                                                        const std::string& target,
                                                        const std::string& device_key,
                                                        bool allow_nearest) {
  if (workloads.empty()) return absl::InvalidArgumentError("export: no workloads requested");
  if (target.empty()) return absl::InvalidArgumentError("export: empty target");
  std::vector<BestRecord> out;
  std::vector<std::string> missing;
  for (const Workload& w : workloads) {
    BestQuery q;
    q.workload = w;
    q.target = target;
    q.device_key = device_key;
    q.k = 1;
    q.nearest_on_miss = allow_nearest;
    absl::StatusOr<std::vector<BestRecord>> best = QueryBest(log, q);
    if (absl::IsNotFound(best.status())) {
      missing.push_back(w.CanonicalString());
      continue;
    }
    if (!best.ok()) return best.status();
    out.push_back(std::move(best->front()));
  }
  if (!missing.empty()) {
    return absl::NotFoundError(absl::StrCat("no tuned config on target '", target, "'",
                                            device_key.empty() ? "" : " device key " + device_key,
                                            " for: ", absl::StrJoin(missing, ", "),
                                            "; tune them first"));
  }
  return out;
}

}  // namespace tunefarm::db
