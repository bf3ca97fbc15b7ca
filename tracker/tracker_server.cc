#include "tracker/tracker_server.h"

#include <grpcpp/grpcpp.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/transport.h"
#include "proto/tracker.grpc.pb.h"

namespace tunefarm {
namespace {

// Runs `call` on the core after the token check and converts its result.
// The core's only ResourceExhausted is a full queue: marked as back-pressure for the client.
template <typename Response, typename Call>
grpc::Status Serve(grpc::ServerContext* context, std::initializer_list<absl::string_view> accepted,
                   Call call, Response* out) {
  if (grpc::Status auth = CheckToken(*context, accepted); !auth.ok()) return auth;
  absl::StatusOr<Response> result = call();
  if (absl::IsResourceExhausted(result.status())) MarkBackPressure(context);
  if (!result.ok()) return ToGrpcStatus(result.status());
  *out = std::move(*result);
  return grpc::Status::OK;
}

}  // namespace

class TrackerServer::Service final : public v1::Tracker::Service {
 public:
  Service(TrackerCore* core, std::string worker_token, std::string client_token)
      : core_(core),
        worker_token_(std::move(worker_token)),
        client_token_(std::move(client_token)) {}

  // Worker side: the worker token.
  grpc::Status Register(grpc::ServerContext* c, const v1::RegisterRequest* r,
                        v1::RegisterResponse* out) override {
    return Serve(
        c, {worker_token_}, [&] { return core_->Register(*r); }, out);
  }
  grpc::Status Heartbeat(grpc::ServerContext* c, const v1::HeartbeatRequest* r,
                         v1::HeartbeatResponse* out) override {
    return Serve(
        c, {worker_token_}, [&] { return core_->Heartbeat(*r); }, out);
  }
  grpc::Status Lease(grpc::ServerContext* c, const v1::LeaseRequest* r,
                     v1::LeaseResponse* out) override {
    return Serve(
        c, {worker_token_}, [&] { return core_->Lease(*r); }, out);
  }
  grpc::Status FetchArtifact(grpc::ServerContext* c, const v1::FetchArtifactRequest* r,
                             v1::Artifact* out) override {
    return Serve(
        c, {worker_token_}, [&] { return core_->FetchArtifact(*r); }, out);
  }
  // Client side: the client token.
  grpc::Status Submit(grpc::ServerContext* c, const v1::SubmitRequest* r,
                      v1::SubmitResponse* out) override {
    return Serve(
        c, {client_token_}, [&] { return core_->Submit(*r); }, out);
  }
  grpc::Status FetchResults(grpc::ServerContext* c, const v1::FetchResultsRequest* r,
                            v1::FetchResultsResponse* out) override {
    return Serve(
        c, {client_token_}, [&] { return core_->FetchResults(*r); }, out);
  }
  grpc::Status Cancel(grpc::ServerContext* c, const v1::CancelRequest* r,
                      v1::CancelResponse* out) override {
    return Serve(
        c, {client_token_}, [&] { return core_->Cancel(*r); }, out);
  }
  // Status (devices, queues, throughput): a client call; workers do not read the farm.
  grpc::Status Summary(grpc::ServerContext* c, const v1::SummaryRequest*,
                       v1::FarmSummary* out) override {
    return Serve(
        c, {client_token_}, [&]() -> absl::StatusOr<v1::FarmSummary> { return core_->Summary(); },
        out);
  }

 private:
  TrackerCore* const core_;
  const std::string worker_token_;
  const std::string client_token_;
};

absl::StatusOr<std::unique_ptr<TrackerServer>> TrackerServer::Start(TrackerServerOptions options,
                                                                    Clock* clock) {
  if (clock == nullptr) clock = RealClock::Get();
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds =
      MakeServerCredentials(options.tls);
  if (!creds.ok()) return creds.status();
  std::unique_ptr<TrackerServer> server(new TrackerServer());
  server->options_ = std::move(options);
  server->clock_ = clock;
  server->core_ = std::make_unique<TrackerCore>(server->options_.core, clock);
  const TrackerServerOptions& o = server->options_;
  server->service_ = std::make_unique<Service>(
      server->core_.get(), RoleToken(o.worker_token, o.token), RoleToken(o.client_token, o.token));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(server->options_.listen_address, *creds, &server->port_);
  ConfigureServerBuilder(builder, server->options_.max_message_bytes);
  // Every waiting worker holds a server thread in its Lease long poll. gRPC's sync server keeps
  // only 2 idle threads by default and makes a thread for each call beyond them, so a large
  // farm's long polls, ending and starting again, made and destroyed threads all the time
  // (most of an idle 1,000-worker tracker's CPU). Idle threads are kept instead.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS,
                              server->options_.max_idle_threads);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", server->options_.listen_address, " (port in use?)"));
  }
  TrackerServer* self = server.get();
  server->liveness_thread_ = std::thread([self] {
    while (!self->stop_.WaitForNotificationWithTimeout(self->options_.liveness_period)) {
      self->core_->CheckLiveness();
    }
  });
  return server;
}

TrackerServer::~TrackerServer() { Shutdown(); }

std::string TrackerServer::address() const {
  std::string host = options_.listen_address.substr(0, options_.listen_address.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "[::]") host = "127.0.0.1";
  return absl::StrCat(host, ":", port_);
}

bool TrackerServer::Drain(absl::Duration timeout) {
  core_->StartDrain();
  // Health checks now say NOT_SERVING, so load balancers and readiness probes send no new
  // clients while queued work finishes.
  if (server_ != nullptr) server_->GetHealthCheckService()->SetServingStatus(false);
  const absl::Time until = clock_->Now() + timeout;
  while (!core_->Drained()) {
    if (clock_->Now() > until) return false;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return true;
}

void TrackerServer::Shutdown() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (liveness_thread_.joinable()) liveness_thread_.join();
  if (core_ != nullptr) core_->Shutdown();
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
    server_.reset();
  }
}

}  // namespace tunefarm
