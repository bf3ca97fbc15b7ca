// The tracker's gRPC shell: serves TrackerCore over gRPC with a token per role (worker,
// client), optional TLS (with client certificates when a client CA is given), bounded message
// sizes, and a background liveness thread. It only translates statuses and threads; all decisions
// live in TrackerCore.
#ifndef TUNEFARM_TRACKER_TRACKER_SERVER_H_
#define TUNEFARM_TRACKER_TRACKER_SERVER_H_

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/tls_options.h"
#include "tracker/tracker_core.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace tunefarm {

// How the tracker listens and authenticates, and the options of its core.
struct TrackerServerOptions {
  // host:port to listen on; port 0 lets the OS choose (see TrackerServer::port()).
  std::string listen_address = "127.0.0.1:0";
  // Secret of each role: workers (Register, Heartbeat, Lease, FetchArtifact) and clients
  // (Submit, FetchResults, Cancel, Summary). An empty role token falls back to
  // `token`, the farm's shared secret; a role left with no token at all is not authenticated.
  std::string token;
  std::string worker_token;
  std::string client_token;
  // Certificate and key for TLS (plaintext when both are empty); with a client CA, peers must
  // present a certificate signed by it.
  TlsOptions tls;
  // Largest message received or sent, in bytes; larger requests are refused with
  // ResourceExhausted.
  int max_message_bytes = 64 << 20;
  // How often leases and heartbeats are checked (TrackerCore::CheckLiveness on a background
  // thread).
  absl::Duration liveness_period = absl::Milliseconds(100);
  // Idle server threads kept for the next calls (gRPC's MAX_POLLERS). A long poll holds a
  // thread, so a farm whose workers poll in waves needs about as many as it has workers.
  int max_idle_threads = 1024;
  // Options of the TrackerCore the server owns.
  TrackerOptions core;
};

// A running tracker: owns its core, the gRPC server and the liveness thread. Destroying it
// shuts it down.
class TrackerServer {
 public:
  // Starts listening and the liveness thread. `clock` (default: the wall clock) drives the
  // core's liveness and must outlive the server.
  // Errors: InvalidArgument/NotFound (bad or missing TLS files, a client CA without a server
  // certificate), Unavailable (cannot bind the address).
  static absl::StatusOr<std::unique_ptr<TrackerServer>> Start(TrackerServerOptions options,
                                                              Clock* clock = nullptr);
  // Shuts down (see Shutdown).
  ~TrackerServer();

  // The bound port and "host:port" address for clients and workers (a wildcard or empty
  // listen host becomes 127.0.0.1).
  int port() const { return port_; }
  std::string address() const;

  // The core itself, for callers in the same process (the local farm, tests, benchmarks).
  TrackerCore& core() { return *core_; }

  // Stops accepting submissions (and its health service says NOT_SERVING) and waits up to
  // `timeout` for queued and leased work to finish and its results to be fetched. Returns true when
  // fully drained. Submissions stay refused either way. `timeout` is on the server's clock, looked
  // at every 50 ms of real time.
  bool Drain(absl::Duration timeout);

  // Stops serving: ends the liveness thread, wakes long polls, gives in-flight calls up to 2 s
  // and then cancels them. Idempotent, but not to be called from two threads at once.
  void Shutdown();

 private:
  // The v1::Tracker gRPC service: checks each call's role token, then forwards it to the core.
  class Service;
  TrackerServer() = default;

  // As given to Start.
  TrackerServerOptions options_;
  std::unique_ptr<TrackerCore> core_;
  // As given to Start (the wall clock by default); the core's clock too.
  Clock* clock_ = nullptr;
  std::unique_ptr<Service> service_;
  // Null once Shutdown has run.
  std::unique_ptr<grpc::Server> server_;
  // Set by the gRPC builder when it binds; 0 means the bind failed.
  int port_ = 0;
  // Notified by Shutdown to end the liveness thread.
  absl::Notification stop_;
  // Declared last so it is destroyed (joined) first, while the core it ticks is alive.
  std::thread liveness_thread_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_TRACKER_TRACKER_SERVER_H_
