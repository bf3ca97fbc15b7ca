// Client library of the tracker, for the tuner and `tunefarm status`. No gRPC type appears in
// this interface; the proto messages are plain data.
//
//   auto client = TrackerClient::Connect({.address = "127.0.0.1:9190", .token = token});
//   std::vector<v1::MeasureRequest> batch = ...;      // request ids unique per tracker
//   absl::StatusOr<std::vector<v1::MeasureResult>> results =
//       (*client)->MeasureBatch("job-7", "cpu-znver4", /*priority=*/0, batch, absl::Minutes(5));
//
// Every request gets exactly one result (possibly an error class such as TIMEOUT or
// DEVICE_LOST). Submission is idempotent per request id, so MeasureBatch resubmits after a
// tracker restart without doubling work.
#ifndef TUNEFARM_FARM_TRACKER_CLIENT_H_
#define TUNEFARM_FARM_TRACKER_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/tls_options.h"
#include "proto/tracker.pb.h"

namespace tunefarm {

struct TrackerClientOptions {
  // "host:port" of the tracker.
  std::string address;
  // The client role's token (or the farm's shared one); empty for a tracker without
  // authentication.
  std::string token;
  TlsOptions tls;
  // Deadline of one unary call (long polls add their wait on top).
  absl::Duration rpc_timeout = absl::Seconds(30);
  int max_message_bytes = 64 << 20;
};

// True for the tracker's "queue full" answer to Submit (a ResourceExhausted that asks the
// caller to fetch results and retry); false for every other status, including the
// ResourceExhausted of a message over the size limit.
bool IsBackPressure(const absl::Status& status);

class TrackerClient {
 public:
  // Creates a client; does not contact the tracker. Errors: NotFound/InvalidArgument (TLS).
  static absl::StatusOr<std::unique_ptr<TrackerClient>> Connect(TrackerClientOptions options);
  ~TrackerClient();

  // Queues `requests` for devices of `device_key` under `job_id`. Higher `priority` runs first;
  // jobs of equal priority share devices round robin.
  // Errors: InvalidArgument (malformed request), NotFound (no device of that key),
  // ResourceExhausted (queue full: fetch results, then retry; IsBackPressure() is true — or,
  // without that mark, a message over the size limit: an error), Unauthenticated (bad token),
  // Unavailable (tracker down or draining), DeadlineExceeded.
  absl::StatusOr<v1::SubmitResponse> Submit(const std::string& job_id,
                                            const std::string& device_key, int priority,
                                            const std::vector<v1::MeasureRequest>& requests);

  // Acknowledges the results named in `ack` (the tracker forgets them), then returns the job's
  // unacknowledged results, waiting up to `wait` for the first one. The reply also carries how
  // many requests are still pending and the tracker's incarnation.
  // Errors: NotFound (unknown job: never submitted, finished and acknowledged, or lost in a
  // tracker restart), Unauthenticated, Unavailable, DeadlineExceeded.
  absl::StatusOr<v1::FetchResultsResponse> FetchResults(const std::string& job_id,
                                                        absl::Duration wait,
                                                        const std::vector<std::string>& ack = {});

  // Submits `requests` (in chunks, retrying on back-pressure) and collects exactly one result
  // per request; `on_result` (optional) sees each as it arrives, before the tracker is told it
  // was received: a result is acknowledged only after `on_result` returned OK for it, so a
  // callback that makes results durable gets each exactly once even if this process dies (an
  // error from it ends the batch with that error, unacknowledged). Results come back in arrival
  // order. A job survives the farm: while the tracker is unreachable (Unavailable,
  // DeadlineExceeded of one call) it retries with backoff; when the tracker restarted (a new
  // incarnation, or it no longer knows the job) it resubmits every request it still waits
  // for, under the same ids; it acknowledges each result only once it holds it, so none is
  // lost on the way. Errors: InvalidArgument, Unauthenticated and the like from the tracker;
  // NotFound (no device of that key, before the tracker ever accepted one of these requests);
  // ResourceExhausted (one request is larger than a message may be); DeadlineExceeded when
  // `timeout` passes first; Cancelled once `cancelled` (optional, asked at least every 2 s,
  // while the tracker answers or not) returns true. On an error `on_result` has seen every
  // result that did arrive: a caller that keeps them there loses no measurement.
  absl::StatusOr<std::vector<v1::MeasureResult>> MeasureBatch(
      const std::string& job_id, const std::string& device_key, int priority,
      const std::vector<v1::MeasureRequest>& requests, absl::Duration timeout,
      const std::function<absl::Status(const v1::MeasureResult&)>& on_result = nullptr,
      const std::function<bool()>& cancelled = nullptr);

  // Drops the job's queued and leased requests; returns how many. Errors: NotFound.
  absl::StatusOr<int> Cancel(const std::string& job_id);

  // Devices, queues and throughput of the farm.
  absl::StatusOr<v1::FarmSummary> Summary();

  // Live (registered, not lost) devices of `device_key`, noisy ones included.
  absl::StatusOr<int> LiveDevices(const std::string& device_key);

 private:
  struct Impl;
  explicit TrackerClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_FARM_TRACKER_CLIENT_H_
