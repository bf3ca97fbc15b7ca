// What `tune` and `serve` share: the farm to measure on (the embedded local farm unless
// --tracker is given), the tuning log, the job manager, and the connection to a remote job
// service (--service). Flags in tuning_setup.cc.
#ifndef TUNEFARM_CLI_TUNING_SETUP_H_
#define TUNEFARM_CLI_TUNING_SETUP_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "db/job_store.h"
#include "db/tuning_log.h"
#include "farm/farm_setup.h"
#include "proto/job.grpc.pb.h"
#include "tuner/service/job_manager.h"

namespace tunefarm::cli {

// Largest message to and from a job service: a model's bytes travel in SubmitJob.
inline constexpr int kMaxModelMessageBytes = 1 << 30;

// Everything a tuning job runs on. Members are destroyed in reverse order: the manager (which
// cancels and joins its jobs) before the client and the farm it uses.
struct TuningStack {
  // The embedded local farm (farm->local) or a remote tracker, and its client.
  std::unique_ptr<Farm> farm;
  std::unique_ptr<db::TuningLog> log;
  // The job service's persisted jobs (serve only); null for `tune`.
  std::unique_ptr<db::JobStore> store;
  std::unique_ptr<tuner::JobManager> manager;
};

// Starts or connects to the farm, opens the log (--db, default tuning.db in the directory the
// command was started from) and creates the job manager. The embedded farm measures on
// --device (default: cuda:0 for a cuda --target, else cpu).
// Errors: as LocalFarm::Start (e.g. InvalidArgument for a bad --device, Unavailable "no CUDA
// device: ..."), TrackerClient::Connect and TuningLog::Open. With `persist_jobs` (the job
// service) the manager keeps its jobs in the log's file (see JobManager::Recover).
absl::StatusOr<std::unique_ptr<TuningStack>> StartTuningStack(bool persist_jobs = false);

// A stub for the job service at --service (with --token and TLS flags).
// InvalidArgument: --service not given.
absl::StatusOr<std::unique_ptr<v1::JobService::Stub>> ConnectJobService();
// --service, or "" when not given.
std::string ServiceAddress();
// Attaches --token to a call to the job service.
void AttachServiceToken(grpc::ClientContext* ctx);

// A path given on the command line, relative to where the user ran the command (bazel run
// changes directory; BUILD_WORKING_DIRECTORY says where the user was).
std::string UserPath(const std::string& path);

// The job's timing cache mode from --flush_cache when the command line gave it; otherwise left
// unspecified, so the service decides (a model's job is timed cold, others as it is set).
void SetJobTimingCache(v1::JobSpec* spec);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_TUNING_SETUP_H_
