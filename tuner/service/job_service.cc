#include "tuner/service/job_service.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/transport.h"
#include "compiler/codegen/target.h"
#include "db/query_best.h"
#include "proto/job.grpc.pb.h"
#include "tuner/service/record_proto.h"

namespace tunefarm::tuner {
namespace {

// Room in an ExportLibrary response for everything but the library and header bytes (kernel
// names, configs), so a library under the limit always fits in one message.
constexpr int64_t kExportMessageOverhead = 1 << 20;

// One of a bounded number of calls served at once (watch streams, exports): held when fewer
// than `max` were in use, released when it goes out of scope.
class CallSlot {
 public:
  CallSlot(std::atomic<int>* in_use, int max) : in_use_(in_use), held_(in_use->fetch_add(1) < max) {
    if (!held_) in_use_->fetch_sub(1);
  }
  CallSlot(const CallSlot&) = delete;
  CallSlot& operator=(const CallSlot&) = delete;
  ~CallSlot() {
    if (held_) in_use_->fetch_sub(1);
  }
  bool held() const { return held_; }

 private:
  std::atomic<int>* in_use_;
  const bool held_;
};

}  // namespace

class JobServer::Service final : public v1::JobService::Service {
 public:
  Service(JobManager* manager, const db::TuningLog* log, const JobServerOptions& options)
      : manager_(manager),
        log_(log),
        token_(options.token),
        max_watchers_(options.max_watch_streams),
        max_exports_(options.max_exports),
        max_export_bytes_(std::min<int64_t>(options.max_export_bytes,
                                            options.max_message_bytes - kExportMessageOverhead)) {}

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
    CallSlot slot(&watchers_, max_watchers_);
    if (!slot.held()) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          absl::StrCat("the service serves ", max_watchers_,
                                       " watch streams at once; poll GetJob or retry later"));
    }
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
    if (grpc::Status s = NeedLog(); !s.ok()) return s;
    db::BestQuery query = FromProto(*req);
    // The log stores normalized targets ("llvm" is recorded as "llvm -mcpu=<host cpu>"); a
    // target this machine cannot parse is looked up as given.
    if (absl::StatusOr<codegen::Target> t = codegen::ParseTarget(query.target); t.ok()) {
      query.target = t->str;
    }
    auto best = db::QueryBest(*log_, query);
    if (!best.ok()) return ToGrpcStatus(best.status());
    *resp = ToProto(*best);
    return grpc::Status::OK;
  }

  grpc::Status ExportLibrary(grpc::ServerContext* ctx, const v1::ExportLibraryRequest* req,
                             v1::ExportLibraryResponse* resp) override {
    if (grpc::Status s = CheckToken(*ctx, {token_}); !s.ok()) return s;
    if (grpc::Status s = NeedLog(); !s.ok()) return s;
    CallSlot slot(&exports_, max_exports_);
    if (!slot.held()) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          absl::StrCat("the service builds ", max_exports_,
                                       " exports at once; retry when one ends"));
    }
    std::vector<db::Workload> workloads;
    for (const v1::Workload& w : req->workloads()) {
      workloads.push_back(db::Workload{w.template_name(), w.args(), 0});
    }
    LibraryExportOptions options;
    options.target = req->target();
    options.device_key = req->device_key();
    options.allow_nearest = req->allow_nearest();
    options.max_bytes = max_export_bytes_;
    auto exported = ExportLibraryBytes(*log_, workloads, options);
    if (!exported.ok()) return ToGrpcStatus(exported.status());
    resp->set_library(std::move(exported->library));
    resp->set_header(std::move(exported->header));
    resp->set_library_name(exported->library_name);
    for (const tuner::ExportedKernel& k : exported->kernels) {
      v1::ExportedKernel* out = resp->add_kernels();
      out->set_symbol(k.symbol);
      out->mutable_workload()->set_template_name(k.workload.template_name);
      out->mutable_workload()->set_args(k.workload.args);
      out->mutable_workload()->set_flop(k.workload.flop);
      out->set_config_json(k.config_json);
      out->set_tuned_gflops(k.tuned_gflops);
      out->set_nearest(k.nearest);
      for (const std::string& pack : k.pack_symbols) out->add_pack_symbols(pack);
    }
    return grpc::Status::OK;
  }

 private:
  // FailedPrecondition for the calls that read the tuning log when the service has none.
  grpc::Status NeedLog() const {
    if (log_ != nullptr) return grpc::Status::OK;
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "this job service runs without a tuning log (--db)");
  }

  JobManager* manager_;
  const db::TuningLog* log_;
  std::string token_;
  const int max_watchers_;
  std::atomic<int> watchers_{0};
  const int max_exports_;
  const int64_t max_export_bytes_;
  std::atomic<int> exports_{0};
};

absl::StatusOr<std::unique_ptr<JobServer>> JobServer::Start(JobManager* manager,
                                                            const db::TuningLog* log,
                                                            const JobServerOptions& options) {
  if (options.max_message_bytes <= kExportMessageOverhead) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_message_bytes (", options.max_message_bytes, ") must exceed the ",
        kExportMessageOverhead, " bytes an exported library's reply needs besides the library"));
  }
  auto creds = MakeServerCredentials(options.tls);
  if (!creds.ok()) return creds.status();
  std::unique_ptr<JobServer> server(new JobServer());
  server->service_ = std::make_unique<Service>(manager, log, options);
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
    server_->GetHealthCheckService()->SetServingStatus(false);
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_.reset();
  }
}

}  // namespace tunefarm::tuner
