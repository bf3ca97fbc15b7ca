#include "cli/dashboard/http_front.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <sys/socket.h>

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/dashboard/dashboard_page.h"
#include "db/tuning_curve.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "report/tuning_curve_svg.h"

namespace tunefarm::cli {
namespace {

constexpr char kJson[] = "application/json";

// The HTTP status a gRPC code stands for (as grpc-gateway maps them).
int HttpStatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:
      return 500;
  }
}

void SendError(const absl::Status& status, httplib::Response& res) {
  google::protobuf::Struct body;
  (*body.mutable_fields())["code"].set_string_value(absl::StatusCodeToString(status.code()));
  (*body.mutable_fields())["message"].set_string_value(std::string(status.message()));
  std::string json;
  // A Struct of two strings always prints.
  (void)google::protobuf::util::MessageToJsonString(body, &json);
  res.status = HttpStatusOf(status.code());
  res.set_content(json, kJson);
}

template <typename Message>
void SendJson(const absl::StatusOr<Message>& message, httplib::Response& res) {
  if (!message.ok()) return SendError(message.status(), res);
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  auto printed = google::protobuf::util::MessageToJsonString(*message, &json, options);
  if (!printed.ok()) return SendError(absl::InternalError(printed.ToString()), res);
  res.set_content(json, kJson);
}

// The page is a static document; its script fetches the rest. No caching: a new build's page
// must be seen at once.
void SendPage(httplib::Response& res) {
  res.set_header("Cache-Control", "no-store");
  res.set_content(kDashboardPage, "text/html; charset=utf-8");
}

// The host part of a Host header ("example.org:8080" -> "example.org", "[::1]:80" -> "::1").
std::string HostOf(absl::string_view header) {
  if (absl::StartsWith(header, "[")) {
    size_t end = header.find(']');
    return std::string(header.substr(1, end == absl::string_view::npos ? end : end - 1));
  }
  return std::string(header.substr(0, header.rfind(':')));
}

bool IsIpLiteral(const std::string& host) {
  in6_addr v6;
  in_addr v4;
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

}  // namespace

bool HostAllowed(absl::string_view host_header, const HttpFrontOptions& options) {
  const std::string host = absl::AsciiStrToLower(HostOf(host_header));
  if (host.empty() || IsIpLiteral(host) || host == "localhost" ||
      host == absl::AsciiStrToLower(options.host)) {
    return true;
  }
  for (const std::string& allowed : options.allowed_hosts) {
    if (host == absl::AsciiStrToLower(allowed)) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<HttpFront>> HttpFront::Start(const DashboardSource* source,
                                                            const HttpFrontOptions& options) {
  std::unique_ptr<HttpFront> front(new HttpFront());
  front->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *front->server_;
  server.set_pre_routing_handler([options](const httplib::Request& req, httplib::Response& res) {
    if (HostAllowed(req.get_header_value("Host"), options)) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    SendError(absl::PermissionDeniedError(absl::StrCat(
                  "host '", req.get_header_value("Host"),
                  "' is not one this dashboard answers to (add it with --http_allowed_hosts)")),
              res);
    return httplib::Server::HandlerResponse::Handled;
  });
  server.Get("/", [](const httplib::Request&, httplib::Response& res) { SendPage(res); });
  server.Get(R"(/jobs/([^/]+))",
             [](const httplib::Request&, httplib::Response& res) { SendPage(res); });
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  server.Get("/api/info", [source](const httplib::Request&, httplib::Response& res) {
    SendJson(absl::StatusOr<v1::DashboardInfo>(source->Info()), res);
  });
  server.Get("/api/farm", [source](const httplib::Request&, httplib::Response& res) {
    SendJson(source->Farm(), res);
  });
  server.Get("/api/jobs", [source](const httplib::Request&, httplib::Response& res) {
    SendJson(source->Jobs(), res);
  });
  server.Get(R"(/api/jobs/([^/]+))", [source](const httplib::Request& req, httplib::Response& res) {
    SendJson(source->Job(req.matches[1]), res);
  });
  server.Get(R"(/api/jobs/([^/]+)/curve\.svg)", [source](const httplib::Request& req,
                                                         httplib::Response& res) {
    absl::StatusOr<v1::JobView> job = source->Job(req.matches[1]);
    if (!job.ok()) return SendError(job.status(), res);
    std::vector<db::CurvePoint> curve;
    std::string title = job->status().job_id();
    if (job->curves_size() > 0) {
      const v1::TaskCurve& task = job->curves(0);
      title = absl::StrCat(title, ": ", task.workload_template(), " ", task.workload_args());
      for (const v1::CurvePoint& p : task.points()) {
        curve.push_back(db::CurvePoint{p.trial(), p.gflops(), p.best_gflops(), -1});
      }
    }
    res.set_content(report::TuningCurveSvg(curve, title), "image/svg+xml");
  });
  server.Get("/api/best", [source](const httplib::Request&, httplib::Response& res) {
    SendJson(source->Best(), res);
  });
  server.Get("/metrics", [source](const httplib::Request&, httplib::Response& res) {
    PrometheusText text;
    source->WriteMetrics(text);
    res.set_content(text.text(), kPrometheusContentType);
  });
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, which would let a second
  // process bind the same port and share its connections instead of failing.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  if (options.port == 0) {
    front->port_ = server.bind_to_any_port(options.host);
  } else if (server.bind_to_port(options.host, options.port)) {
    front->port_ = options.port;
  } else {
    front->port_ = -1;
  }
  if (front->port_ <= 0) {
    return absl::UnavailableError(absl::StrCat("dashboard: cannot listen on ", options.host, ":",
                                               options.port, " (port in use?)"));
  }
  front->thread_ = std::thread([&server] { server.listen_after_bind(); });
  // httplib's stop() does nothing until the accept loop runs, so a front destroyed at once
  // would never stop: wait for the loop (it starts in microseconds; bounded all the same).
  for (int i = 0; i < 5000 && !server.is_running(); ++i) absl::SleepFor(absl::Milliseconds(1));
  return front;
}

HttpFront::~HttpFront() {
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace tunefarm::cli
