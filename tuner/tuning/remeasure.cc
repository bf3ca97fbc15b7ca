#include "tuner/tuning/remeasure.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "db/config_rank.h"
#include "tuner/tuning/builder.h"
#include "tuner/tuning/result_record.h"
#include "tuner/tuning/tuner.h"
#include "tuner/tuning/winner.h"

namespace tunefarm::tuner {

absl::StatusOr<Remeasured> RemeasureConfig(const TuneTask& task, int64_t index, Measurer& measurer,
                                           db::TuningLog* log, const RemeasureOptions& options) {
  if (options.runs < 1 || options.runs > 100) {
    return absl::InvalidArgumentError(absl::StrCat("runs must be 1-100, not ", options.runs));
  }
  if (index < 0 || index >= task.space->size()) {
    return absl::InvalidArgumentError(absl::StrCat("config ", index, " is outside the space of ",
                                                   task.space->size(), " configs"));
  }
  const BuildResult reference = BuildConfig(task, std::nullopt);
  if (!reference.status.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the reference does not build: ", reference.status.message()));
  }
  const BuildResult build = BuildConfig(task, index);
  if (!build.status.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("config ", index, " does not build: ", build.status.message()));
  }
  Remeasured out;
  for (int run = 0; run < options.runs; ++run) {
    absl::Status recorded = absl::OkStatus();
    MeasuredBatch m =
        measurer.Measure({build}, reference, {}, [&](size_t, const v1::MeasureResult& r) {
          if (log == nullptr) return absl::OkStatus();
          RecordContext context{options.db_job_id, options.tuner_version, std::nullopt,
                                absl::Now()};
          if (!r.worker_id().empty()) context.device = measurer.Describe(r.worker_id());
          recorded = log->Insert({RecordFromResult(task, index, r, context)}).status();
          return recorded;
        });
    if (!m.results.empty() && m.arrived[0]) {
      out.results.push_back(m.results[0]);
      const double cost = ResultCost(m.results[0]);
      if (std::isfinite(cost)) out.costs_s.push_back(cost);
    }
    if (!m.status.ok()) return m.status;
  }
  if (out.costs_s.empty()) {
    return absl::InternalError(absl::StrCat(
        "no run of config ", index,
        " succeeded: ", out.results.empty() ? "no result" : out.results.front().message()));
  }
  out.median_s = db::MedianFiniteCost(out.costs_s);
  return out;
}

}  // namespace tunefarm::tuner
