// The job service's core, with no gRPC in it: validates job specs, runs each job on its own
// thread (several tasks share the trial budget through the TaskScheduler), and keeps every
// job's status for Get/Watch/List. The gRPC shell is job_service.h.
#ifndef TUNEFARM_TUNER_SERVICE_JOB_MANAGER_H_
#define TUNEFARM_TUNER_SERVICE_JOB_MANAGER_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "db/tuning_log.h"
#include "proto/job.pb.h"
#include "tracker/tracker_client.h"
#include "tuner/search/search_strategy.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// Makes the search strategy `name` for a task. InvalidArgument: unknown name.
using StrategyFactory = std::function<absl::StatusOr<std::unique_ptr<SearchStrategy>>(
    const std::string& name, const TuneTask& task, uint64_t seed, db::TuningLog* log)>;

struct JobManagerOptions {
  // The farm; must outlive the manager.
  TrackerClient* client = nullptr;
  // Where every measurement is recorded; may be null (nothing recorded).
  db::TuningLog* log = nullptr;
  StrategyFactory make_strategy;
  int build_threads = 2;
  // Used for jobs that name no device key (e.g. the embedded local farm's key).
  std::string default_device_key;
  v1::TimingOptions timing;
  int measure_timeout_ms = 10000;
};

class JobManager {
 public:
  explicit JobManager(JobManagerOptions options);
  // Cancels running jobs and waits for their threads.
  ~JobManager();

  // Validates and starts a job; returns its id.
  // InvalidArgument: no tasks, unknown template, bad shape/dtype/target, trials <= 0, unknown
  // strategy, a device key without live devices. Unavailable: the farm cannot be reached.
  absl::StatusOr<std::string> Submit(const v1::JobSpec& spec);
  // NotFound: unknown job id.
  absl::StatusOr<v1::JobStatus> Get(const std::string& job_id) const;
  // Waits until the job's status version exceeds `after_version` or the job has ended, at most
  // `timeout`; returns the current status. NotFound: unknown job id.
  absl::StatusOr<v1::JobStatus> WaitForChange(const std::string& job_id, int64_t after_version,
                                              absl::Duration timeout) const;
  // Asks the job to stop after its current round. NotFound: unknown job id.
  absl::StatusOr<v1::JobStatus> Cancel(const std::string& job_id);
  std::vector<v1::JobStatus> List() const;

  static bool IsTerminal(v1::JobState state);

 private:
  struct Job {
    v1::JobStatus status;
    std::vector<TuneTask> tasks;
    std::atomic<bool> cancel{false};
    std::thread thread;
  };

  void Run(Job* job);
  // Applies `update` to the job's status under the lock and bumps its version.
  void Update(Job* job, const std::function<void(v1::JobStatus*)>& update);

  JobManagerOptions options_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Job>> jobs_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SERVICE_JOB_MANAGER_H_
