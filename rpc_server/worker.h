// The device worker: dials out to the tracker (works behind NAT), registers with a fresh
// incarnation id, heartbeats, leases requests one at a time, fetches each artifact once per
// content hash, measures on its DeviceBackend and reports the result with its next lease
// (one round trip per measurement). It re-registers by itself when the tracker restarts, and
// keeps unacknowledged results until a lease call carries them. Stop() is graceful: the
// measurement in progress finishes and is reported, unstarted leases are returned.
#ifndef TUNEFARM_RPC_SERVER_WORKER_H_
#define TUNEFARM_RPC_SERVER_WORKER_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/tls_options.h"
#include "proto/common.pb.h"
#include "rpc_server/device_backend.h"

namespace tunefarm {

struct WorkerOptions {
  // "host:port" of the tracker.
  std::string tracker_address;
  // The worker role's token (or the farm's shared one); never logged.
  std::string token;
  TlsOptions tls;
  // Device key and target; the backend fills in the hardware fields.
  std::string key;
  std::string target;
  // Free-form labels shown in status (e.g. rack=3).
  std::vector<std::pair<std::string, std::string>> labels;
  // Unique worker name; empty means "<hostname>-<pid>-<n>".
  std::string worker_id;
  // Directory for cached artifacts, private to this user (mode 0700); empty means a fresh one
  // under $TMPDIR or /tmp (see ArtifactCache::Create).
  std::string cache_dir;
  int max_cached_artifacts = 4096;
  // Long-poll wait of one lease call. The tracker counts a waiting worker as alive, and Stop()
  // cancels the wait, so a long wait costs nothing but keeps an idle farm's call rate low.
  absl::Duration lease_wait = absl::Seconds(10);
  // How often the calibration kernel runs (between measurements); zero disables it.
  absl::Duration calibration_period = absl::Seconds(60);
  // Pause between attempts to reach an unreachable tracker.
  absl::Duration reconnect_backoff = absl::Milliseconds(200);
  int max_message_bytes = 64 << 20;
  // Requests handled at once: leased together and run on this many threads. Only for backends
  // that allow calls from several threads (a builder's); a measuring device keeps 1, so no two
  // kernels share its cores.
  int parallel = 1;
};

class Worker {
 public:
  // Errors: InvalidArgument (no tracker address or key), Internal (cache dir).
  static absl::StatusOr<std::unique_ptr<Worker>> Create(WorkerOptions options,
                                                        std::unique_ptr<DeviceBackend> backend);
  ~Worker();

  // Serves until Stop(). Returns OK after a graceful stop; Unauthenticated when the tracker
  // rejects the token (retrying cannot help).
  absl::Status Run();

  // Asks Run() to finish: thread-safe, returns at once.
  void Stop();

  const std::string& worker_id() const;
  // Measurements finished by this worker.
  int64_t completed() const;
  // Times this worker (re)registered.
  int64_t registrations() const;

 private:
  struct Impl;
  explicit Worker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// "<hostname>-<pid>-<n>", unique within the process.
std::string DefaultWorkerId();

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_WORKER_H_
