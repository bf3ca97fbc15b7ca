// The job service's core, with no gRPC in it: validates job specs, runs each job on its own
// thread (several tasks share the trial budget through the TaskScheduler), and keeps every
// job's status for Get/Watch/List. With a JobStore, every job's status is persisted; Recover()
// after a restart lists the old jobs again and resumes those that had not ended (each task
// resumes from the records the tuning log already holds). Everything a job spec may ask for
// is bounded, and finished jobs beyond a cap are forgotten, oldest first. The gRPC shell is
// job_service.h.
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
#include "common/clock.h"
#include "db/job_store.h"
#include "db/tuning_log.h"
#include "farm/tracker_client.h"
#include "proto/job.pb.h"
#include "tuner/search/search_strategy.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// Makes the search strategy `name` for a task. InvalidArgument: unknown name.
using StrategyFactory = std::function<absl::StatusOr<std::unique_ptr<SearchStrategy>>(
    const std::string& name, const TuneTask& task, uint64_t seed, db::TuningLog* log)>;

// The tasks of a model (v1::ModelSpec) for `target`: the graph layer's, given by the program
// that links it (the tuner does not depend on graph/). InvalidArgument/Unimplemented/NotFound:
// the model cannot be read or compiled (the message says why).
using ModelExpander = std::function<absl::StatusOr<std::vector<v1::TaskSpec>>(
    const v1::ModelSpec& model, const std::string& target)>;

struct JobManagerOptions {
  // The farm; must outlive the manager.
  TrackerClient* client = nullptr;
  // Where every measurement is recorded; may be null (nothing recorded).
  db::TuningLog* log = nullptr;
  // Where jobs are persisted for Recover(); may be null (jobs end with the process).
  db::JobStore* store = nullptr;
  StrategyFactory make_strategy;
  int build_threads = 2;
  // Device key of the farm's builder workers (`tunefarm server --role builder`): while any is
  // live, each round's candidates are built on them (farm_build.h), else on build_threads
  // here. Empty: always here.
  std::string builder_key;
  // Used for jobs that name no device key (e.g. the embedded local farm's key).
  std::string default_device_key;
  // Configs each task measures first (TuneOptions::seed_configs), given the task and its
  // batch size; unset: none. `tune --seed-from-log` takes them from an AutoTVM log.
  std::function<std::vector<int64_t>(const TuneTask& task, int batch_size)> seed_configs;
  v1::TimingOptions timing;
  int measure_timeout_ms = 10000;
  // Bounds on what the network may ask for.
  // Jobs queued or running at once; Submit beyond it is ResourceExhausted.
  int max_active_jobs = 16;
  int max_tasks_per_job = 256;
  // Jobs with a model: how its tasks are made (none: such jobs are refused), and the largest
  // ONNX file accepted in a request.
  ModelExpander expand_model;
  int64_t max_model_bytes = int64_t{256} << 20;
  int max_trials = 1000000;
  // Finished jobs remembered (in memory and in the store); the oldest are forgotten first.
  int max_kept_jobs = 1000;
  // Least time between two saves of a running job's progress (state changes save at once).
  absl::Duration save_period = absl::Seconds(1);
  // Source of every time the manager and its jobs' sessions read (save pacing, the store's
  // updated_at, records' timestamps, progress); must outlive the manager.
  const Clock* clock = RealClock::Get();
};

class JobManager {
 public:
  explicit JobManager(JobManagerOptions options);
  // Stops every running job after its current round and waits for the threads. Jobs stopped
  // this way stay unfinished in the store: the next Recover() resumes them.
  ~JobManager();

  // Loads the store's jobs (call once, before Submit): finished ones are listed again, the
  // others are resumed under their ids (the tracker's leftovers of the old run are cancelled
  // first). A stored job that no longer validates (e.g. its template is gone) is marked
  // failed with the reason; an unreadable row is skipped. Returns the number resumed.
  // FailedPrecondition: jobs were submitted already. Errors of the store.
  absl::StatusOr<int> Recover();

  // Validates and starts a job; returns its id.
  // A spec with a model has its tasks made from it first (options.expand_model).
  // InvalidArgument: no tasks or too many, both tasks and a model, a model over
  // max_model_bytes or that cannot be read, unknown template, bad shape/dtype/target, trials
  // <= 0 or over max_trials, unknown strategy, a device key without live devices.
  // ResourceExhausted: max_active_jobs are queued or running. Unavailable: the farm cannot be
  // reached. Unimplemented: a model with operators the graph layer cannot compile, or a
  // service with no model support.
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
    int64_t seq = 0;
    std::vector<TuneTask> tasks;
    std::atomic<bool> cancel{false};
    // Set by Run() as its last act: the thread can be joined at once.
    std::atomic<bool> exited{false};
    absl::Time last_saved = absl::InfinitePast();
    std::thread thread;
  };

  // Checks the spec against the bounds and builds its tasks.
  absl::StatusOr<std::vector<TuneTask>> Validate(v1::JobSpec& spec) const;
  void Start(std::shared_ptr<Job> job);
  void Run(Job* job);
  // Applies `update` to the job's status under the lock, bumps its version and persists it
  // (state changes at once, progress at most every save_period).
  void Update(Job* job, const std::function<void(v1::JobStatus*)>& update);
  void SaveLocked(Job* job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes finished jobs beyond max_kept_jobs, oldest first; returns them for joining.
  std::vector<std::shared_ptr<Job>> EvictLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int ActiveLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Stopping() const;

  JobManagerOptions options_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Job>> jobs_ ABSL_GUARDED_BY(mu_);
  int64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
  // The manager is being destroyed: stopped jobs are left resumable, not cancelled.
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SERVICE_JOB_MANAGER_H_
