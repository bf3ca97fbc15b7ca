// The gRPC shell of the job service: translates protos and statuses, checks the token, and
// streams WatchJob; all logic lives in JobManager, db::QueryBest and ExportLibraryBytes.
#ifndef TUNEFARM_TUNER_SERVICE_JOB_SERVICE_H_
#define TUNEFARM_TUNER_SERVICE_JOB_SERVICE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/tls_options.h"
#include "common/transport.h"
#include "db/tuning_log.h"
#include "tuner/service/job_manager.h"
#include "tuner/service/library_export.h"

namespace grpc {
class Server;
}

namespace tunefarm::tuner {

struct JobServerOptions {
  // "host:port"; port 0 lets the OS choose.
  std::string address = "127.0.0.1:0";
  // Required on every call when non-empty.
  std::string token;
  TlsOptions tls;
  // WatchJob streams served at once; more are refused with ResourceExhausted.
  int max_watch_streams = 64;
  // Largest request accepted (a job with a model carries its bytes).
  int max_message_bytes = kDefaultMaxMessageBytes;
  // ExportLibrary calls building at once (each compiles its workloads); more are refused with
  // ResourceExhausted.
  int max_exports = 2;
  // Largest library plus header one ExportLibrary returns (also bounded by max_message_bytes).
  int64_t max_export_bytes = kDefaultMaxExportBytes;
};

class JobServer {
 public:
  // Starts serving `manager` (and QueryBest and ExportLibrary over `log`, which may be null:
  // those two then fail with FailedPrecondition). Both must outlive the server.
  // Errors: Unavailable (cannot bind), InvalidArgument (TLS files, max_message_bytes under the
  // 1 MiB an export reply needs besides the library).
  static absl::StatusOr<std::unique_ptr<JobServer>> Start(JobManager* manager,
                                                          const db::TuningLog* log,
                                                          const JobServerOptions& options);
  ~JobServer();
  // The port actually bound.
  int port() const { return port_; }
  void Shutdown();

 private:
  JobServer() = default;
  class Service;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SERVICE_JOB_SERVICE_H_
