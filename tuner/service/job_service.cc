#include "tuner/service/job_service.h"

#include <grpcpp/grpcpp.h>

#include <atomic>

#include "absl/strings/str_cat.h"
#include "common/transport.h"
#include "db/query_best.h"
#include "proto/job.grpc.pb.h"
#include "tuner/service/record_proto.h"

namespace tunefarm::tuner {

class JobServer::Service final : public v1::JobService::Service {
 public:
  Service(JobManager* manager, const db::TuningLog* log, std::string token, int max_watchers)
      : manager_(manager), log_(log), token_(std::move(token)), max_watchers_(max_watchers) {}

  grpc::Status SubmitJob(grpc::ServerContext* ctx, const v1::SubmitJobRequest* req,
                         v1::SubmitJobResponse* resp) override {
    if (grpc::Status s = CheckToken(*ctx, {token_}); !s.ok()) return s;
    auto id = manager_->Submit(req->spec());
    if (!id.ok()) return ToGrpcStatus(id.status());
    resp->set_job_id(*id);
    return grpc::Status::OK;
  }

  grpc::Status GetJob(grpc::ServerContext* ctx, const v1::JobRequest* req,
                      v1::JobStatus* resp) override {
    if (grpc::Status s = CheckToken(*ctx, {token_}); !s.ok()) return s;
    auto st = manager_->Get(req->job_id());
    if (!st.ok()) return ToGrpcStatus(st.status());
    *resp = *st;
    return grpc::Status::OK;
  }

  grpc::Status WatchJob(grpc::ServerContext* ctx, const v1::JobRequest* req,
                        grpc::ServerWriter<v1::JobStatus>* writer) override {
    if (grpc::Status s = CheckToken(*ctx, {token_}); !s.ok()) return s;
    if (watchers_.fetch_add(1) >= max_watchers_) {
      watchers_.fetch_sub(1);
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          absl::StrCat("the service serves ", max_watchers_,
                                       " watch streams at once; poll GetJob or retry later"));
    }
    struct Release {
      std::atomic<int>* n;
      ~Release() { n->fetch_sub(1); }
    } release{&watchers_};
    int64_t version = 0;
    while (!ctx->IsCancelled()) {
      auto st = manager_->WaitForChange(req->job_id(), version, absl::Seconds(1));
      if (!st.ok()) return ToGrpcStatus(st.status());
      if (st->version() > version) {
        version = st->version();
        if (!writer->Write(*st)) return grpc::Status::OK;  // Client went away.
      }
      if (JobManager::IsTerminal(st->state())) return grpc::Status::OK;
    }
    return grpc::Status(grpc::StatusCode::CANCELLED, "watch cancelled");
  }

  grpc::Status CancelJob(grpc::ServerContext* ctx, const v1::JobRequest* req,
                         v1::JobStatus* resp) override {
    if (grpc::Status s = CheckToken(*ctx, {token_}); !s.ok()) return s;
    auto st = manager_->Cancel(req->job_id());
    if (!st.ok()) return ToGrpcStatus(st.status());
    *resp = *st;
    return grpc::Status::OK;
  }

  grpc::Status ListJobs(grpc::ServerContext* ctx, const v1::ListJobsRequest*,
                        v1::ListJobsResponse* resp) override {
    if (grpc::Status s = CheckToken(*ctx, {token_}); !s.ok()) return s;
    for (const v1::JobStatus& st : manager_->List()) *resp->add_jobs() = st;
    return grpc::Status::OK;
  }

  grpc::Status QueryBest(grpc::ServerContext* ctx, const v1::QueryBestRequest* req,
                         v1::QueryBestResponse* resp) override {
    if (grpc::Status s = CheckToken(*ctx, {token_}); !s.ok()) return s;
    if (log_ == nullptr) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "this job service runs without a tuning log (--db)");
    }
    auto best = db::QueryBest(*log_, FromProto(*req));
    if (!best.ok()) return ToGrpcStatus(best.status());
    *resp = ToProto(*best);
    return grpc::Status::OK;
  }

 private:
  JobManager* manager_;
  const db::TuningLog* log_;
  std::string token_;
  const int max_watchers_;
  std::atomic<int> watchers_{0};
};

absl::StatusOr<std::unique_ptr<JobServer>> JobServer::Start(JobManager* manager,
                                                            const db::TuningLog* log,
                                                            const JobServerOptions& options) {
  auto creds = MakeServerCredentials(options.tls);
  if (!creds.ok()) return creds.status();
  std::unique_ptr<JobServer> server(new JobServer());
  server->service_ =
      std::make_unique<Service>(manager, log, options.token, options.max_watch_streams);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.address, *creds, &server->port_);
  builder.RegisterService(server->service_.get());
  ConfigureServerBuilder(builder, options.max_message_bytes);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.address));
  }
  return server;
}

JobServer::~JobServer() { Shutdown(); }

void JobServer::Shutdown() {
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_.reset();
  }
}

}  // namespace tunefarm::tuner
