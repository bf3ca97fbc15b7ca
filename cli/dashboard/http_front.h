// The dashboard's HTTP front, on cpp-httplib (Debian's libcpp-httplib-dev): the page, its JSON
// endpoints and /metrics, all read-only and answered from a DashboardSource.
//
//   GET /, /jobs/ID          the page (one HTML document; its script draws the rest)
//   GET /api/info            v1.DashboardInfo          which service, host peak
//   GET /api/farm            v1.FarmSummary            devices and queues
//   GET /api/jobs            v1.JobViews               jobs, newest first, with their curves
//   GET /api/jobs/ID         v1.JobView                one job, its tasks and curves
//   GET /api/jobs/ID/curve.svg                          the job's first curve as an SVG picture
//   GET /api/best            v1.BestTable              best config per workload
//   GET /metrics             Prometheus text format
//   GET /healthz             "ok"
//
// A request whose Host header names a host not allowed (HttpFrontOptions::allowed_hosts) is
// answered 403.
//
// JSON is protobuf's JSON mapping of those messages (field names in lowerCamelCase, 64-bit
// integers as strings). Errors answer {"code": "NOT_FOUND", "message": ...} with the HTTP status
// of the gRPC code (404, 501, 503, ...).
#ifndef TUNEFARM_CLI_DASHBOARD_HTTP_FRONT_H_
#define TUNEFARM_CLI_DASHBOARD_HTTP_FRONT_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/dashboard/dashboard_source.h"

namespace httplib {
class Server;
}

namespace tunefarm::cli {

struct HttpFrontOptions {
  // Address to listen on. The page shows jobs and configs to anyone who can reach it and has no
  // token check, so the default is loopback; listen wider on purpose (or behind a proxy).
  std::string host = "127.0.0.1";
  // 0 lets the OS choose (see HttpFront::port()).
  int port = 0;
  // Host names requests may carry in their Host header besides IP literals, "localhost" and
  // `host` itself: the names people reach the page by (a DNS name, a proxy's). Any other name is
  // refused with 403, so a web page the user opens cannot rebind its own name to this address
  // and read the dashboard from the browser (DNS rebinding).
  std::vector<std::string> allowed_hosts;
};

// Whether a request with this Host header is answered (see HttpFrontOptions::allowed_hosts).
bool HostAllowed(absl::string_view host_header, const HttpFrontOptions& options);

class HttpFront {
 public:
  // Starts serving `source` (which must outlive the front) on a background thread.
  // Unavailable: cannot bind host:port.
  static absl::StatusOr<std::unique_ptr<HttpFront>> Start(const DashboardSource* source,
                                                          const HttpFrontOptions& options);
  // Stops serving and joins the thread.
  ~HttpFront();

  int port() const { return port_; }

 private:
  HttpFront() = default;

  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  // Runs the server's accept loop; declared last so it is joined before the server is freed.
  std::thread thread_;
};

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_DASHBOARD_HTTP_FRONT_H_
