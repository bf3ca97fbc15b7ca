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

// The tuning loop's view of the farm; tests substitute a fake.
class Measurer {
 public:
  virtual ~Measurer() = default;
  // One result per build, in the same order. Builds that failed come back as BUILD_ERROR
  // without reaching a device; `reference` (the unscheduled program) checks correctness.
  // Errors (in MeasuredBatch::status): the farm is unreachable or refuses the job
  // (DeadlineExceeded when it stays unreachable past the batch timeout, NotFound for an unknown
  // device key, Unauthenticated, InvalidArgument, ResourceExhausted for a request over the
  // message limit), or the sink's own error; per-config failures are results, not errors.
  // `avoid_workers` (empty, or one per build; "" = any) asks the farm to measure each build on
  // another device than the named one when it has one (top-k re-measurement). `sink` (may be
  // empty) sees every result, BUILD_ERROR ones included, as it arrives.
  virtual MeasuredBatch Measure(const std::vector<BuildResult>& builds,
                                const BuildResult& reference,
                                const std::vector<std::string>& avoid_workers,
                                const ResultSink& sink) = 0;
  // Live devices that can measure (for deciding whether top-k re-measurement has a second
  // device). Errors: the farm cannot be asked (Unavailable, DeadlineExceeded, ...).
  virtual absl::StatusOr<int> LiveDevices() = 0;
  // Drops work still queued for this job; best effort, so it reports nothing. Default: no-op.
  virtual void Cancel() {}
  // What the worker that produced a result is (CPU model, cores), when known; the default
  // knows nothing.
  virtual std::optional<v1::DeviceDescription> Describe(const std::string& worker_id) {
    return std::nullopt;
  }
};

// How a TrackerMeasurer submits its requests.
struct TrackerMeasurerOptions {
  // The tracker job the requests belong to (what Cancel drops); also the prefix of every
  // request id.
  std::string job_id;
  // Queue of the devices that measure, e.g. "cpu-znver4".
  std::string device_key;
  // Higher runs first; jobs of equal priority share the devices round robin.
  int priority = 0;
  // How each config is timed on the device (runs per repeat, repeats).
  v1::TimingOptions timing;
  // Per-measurement limit on the device, in milliseconds.
  int timeout_ms = 10000;
  // Whole-batch limit: past it Measure ends with DeadlineExceeded, keeping what arrived.
  absl::Duration batch_timeout = absl::Minutes(10);
  // Inputs are filled from this seed on the device.
  uint64_t seed = 1;
  // Optional: once it returns true, a Measure in flight ends within about 2 s with Cancelled,
  // keeping what arrived (a user's cancel does not wait out a tracker that is gone).
  std::function<bool()> cancelled;
};

// Measures through a tracker: one MeasureRequest per successful build, with the id
// "<job_id>/<nonce>/<n>" (a random nonce per measurer, so ids do not collide). Not thread-safe.
class TrackerMeasurer : public Measurer {
 public:
  // `client` must outlive the measurer. Draws the random nonce of its request ids.
  TrackerMeasurer(TrackerClient* client, TrackerMeasurerOptions options);
  // As Measurer::Measure. Failed builds are answered here as BUILD_ERROR and given to the sink
  // before anything is submitted; the rest go to one TrackerClient::MeasureBatch call.
  MeasuredBatch Measure(const std::vector<BuildResult>& builds, const BuildResult& reference,
                        const std::vector<std::string>& avoid_workers,
                        const ResultSink& sink) override;
  // The tracker's count for options.device_key.
  absl::StatusOr<int> LiveDevices() override;
  // Cancels options.job_id on the tracker; its error is ignored.
  void Cancel() override;
  // From the farm summary, fetched the first time an unknown worker id is asked about; the
  // answer, nullopt included, is cached.
  std::optional<v1::DeviceDescription> Describe(const std::string& worker_id) override;

 private:
  // Worker id -> its description (nullopt: not in the farm summary when asked).
  std::map<std::string, std::optional<v1::DeviceDescription>> devices_;
  // Not owned.
  TrackerClient* client_;
  TrackerMeasurerOptions options_;
  // Makes request ids unique across tracker restarts and concurrent tuners.
  std::string nonce_;
  // Sequence number of the next request id.
  int64_t next_request_ = 0;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_MEASURER_H_
