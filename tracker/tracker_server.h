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

struct TrackerServerOptions {
  // host:port to listen on; port 0 lets the OS choose (see TrackerServer::port()).
  std::string listen_address = "127.0.0.1:0";
  // Secret of each role: workers (Register, Heartbeat, Lease, FetchArtifact) and clients
  // (Submit, FetchResults, Cancel, Summary). An empty role token falls back to
  // `token`, the farm's shared secret; all empty disables authentication.
  std::string token;
  std::string worker_token;
  std::string client_token;
  TlsOptions tls;
  // Larger requests are refused with ResourceExhausted.
  int max_message_bytes = 64 << 20;
  // How often leases and heartbeats are checked.
  absl::Duration liveness_period = absl::Milliseconds(100);
  TrackerOptions core;
};

class TrackerServer {
 public:
  // Starts listening. `clock` (default: the wall clock) must outlive the server.
  // Errors: InvalidArgument/NotFound (bad TLS files), Unavailable (cannot bind the address).
  static absl::StatusOr<std::unique_ptr<TrackerServer>> Start(TrackerServerOptions options,
                                                              Clock* clock = nullptr);
  ~TrackerServer();

  // The bound port and "host:port" address for clients and workers.
  int port() const { return port_; }
  std::string address() const;

  TrackerCore& core() { return *core_; }

  // Stops accepting submissions and waits up to `timeout` for queued and leased work to finish
  // and its results to be fetched. Returns true when fully drained.
  bool Drain(absl::Duration timeout);

  // Stops serving (wakes long polls, cancels in-flight calls). Idempotent.
  void Shutdown();

 private:
  class Service;
  TrackerServer() = default;

  TrackerServerOptions options_;
  std::unique_ptr<TrackerCore> core_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  absl::Notification stop_;
  // Declared last so it is destroyed (joined) first, while the core it ticks is alive.
  std::thread liveness_thread_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_TRACKER_TRACKER_SERVER_H_
