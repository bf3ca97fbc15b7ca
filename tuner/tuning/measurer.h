// How the tuning loop gets costs: a Measurer turns built artifacts into measurement results.
// TrackerMeasurer sends them through a tracker (remote farm or the embedded local farm).
#ifndef TUNEFARM_TUNER_TUNING_MEASURER_H_
#define TUNEFARM_TUNER_TUNING_MEASURER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "farm/tracker_client.h"
#include "proto/measure.pb.h"
#include "proto/tracker.pb.h"
#include "tuner/tuning/builder.h"

namespace tunefarm::tuner {

// What one Measure call brought back.
struct MeasuredBatch {
  // One per build, in build order; results[i] is empty where arrived[i] is false.
  std::vector<v1::MeasureResult> results;
  std::vector<bool> arrived;
  // OK when every result arrived. Otherwise why the others did not (the farm unreachable past
  // the batch timeout, the job refused); the results that did arrive are real measurements and
  // are to be recorded all the same.
  absl::Status status;
};

// Sees each result as it arrives (build_index: its position in the builds), before the farm
// is told it was received. A sink that records it durably gets every measurement exactly once
// even if the process dies mid-batch; its error ends the batch (MeasuredBatch::status).
using ResultSink = std::function<absl::Status(size_t build_index, const v1::MeasureResult&)>;

class Measurer {
 public:
  virtual ~Measurer() = default;
  // One result per build, in the same order. Builds that failed come back as BUILD_ERROR
  // without reaching a device; `reference` (the unscheduled program) checks correctness.
  // Errors (in MeasuredBatch::status): the farm is unreachable or refuses the job
  // (Unavailable, NotFound for an unknown device key, Unauthenticated, DeadlineExceeded);
  // per-config failures are results, not errors.
  // `avoid_workers` (empty, or one per build; "" = any) asks the farm to measure each build on
  // another device than the named one when it has one (top-k re-measurement). `sink` (may be
  // empty) sees every result, BUILD_ERROR ones included, as it arrives.
  virtual MeasuredBatch Measure(const std::vector<BuildResult>& builds,
                                const BuildResult& reference,
                                const std::vector<std::string>& avoid_workers,
                                const ResultSink& sink) = 0;
  // Live devices that can measure (for deciding whether top-k re-measurement has a second
  // device).
  virtual absl::StatusOr<int> LiveDevices() = 0;
  // Drops work still queued for this job.
  virtual void Cancel() {}
  // What the worker that produced a result is (CPU model, cores), when known.
  virtual std::optional<v1::DeviceDescription> Describe(const std::string& worker_id) {
    return std::nullopt;
  }
};

struct TrackerMeasurerOptions {
  std::string job_id;
  std::string device_key;
  int priority = 0;
  v1::TimingOptions timing;
  // Per-measurement limit on the device.
  int timeout_ms = 10000;
  // Whole-batch limit.
  absl::Duration batch_timeout = absl::Minutes(10);
  // Inputs are filled from this seed on the device.
  uint64_t seed = 1;
};

class TrackerMeasurer : public Measurer {
 public:
  // `client` must outlive the measurer.
  TrackerMeasurer(TrackerClient* client, TrackerMeasurerOptions options);
  MeasuredBatch Measure(const std::vector<BuildResult>& builds, const BuildResult& reference,
                        const std::vector<std::string>& avoid_workers,
                        const ResultSink& sink) override;
  absl::StatusOr<int> LiveDevices() override;
  void Cancel() override;
  std::optional<v1::DeviceDescription> Describe(const std::string& worker_id) override;

 private:
  // Worker id -> its description (nullopt: not in the farm summary when asked).
  std::map<std::string, std::optional<v1::DeviceDescription>> devices_;
  TrackerClient* client_;
  TrackerMeasurerOptions options_;
  // Makes request ids unique across tracker restarts and concurrent tuners.
  std::string nonce_;
  int64_t next_request_ = 0;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_MEASURER_H_
