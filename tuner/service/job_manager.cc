#include "tuner/service/job_manager.h"

#include <algorithm>
#include <cmath>

#include "absl/base/internal/raw_logging.h"
#include "absl/strings/str_cat.h"
#include "common/random_token.h"
#include "common/version.h"
#include "tuner/generated/program_template.h"
#include "tuner/service/farm_build.h"
#include "tuner/service/task_scheduler.h"
#include "tuner/service/task_spec.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::tuner {
namespace {

void SetTaskTime(const TuneTimeSplit& t, v1::TaskTime* out) {
  out->set_search_s(t.search_s);
  out->set_build_s(t.build_s);
  out->set_measure_s(t.measure_s);
  out->set_record_s(t.record_s);
}

constexpr int kDefaultBatch = 16;
constexpr int kDefaultTopK = 5;
// Bounds on what a job spec from the network may ask for.
constexpr int kMaxBatch = 1024;
constexpr int kMaxTopK = 64;
constexpr int kDefaultTopKRounds = 3;
constexpr int kMaxTopKRounds = 10;

int TopK(const v1::JobSpec& spec) {
  if (spec.top_k() < 0) return 0;
  return spec.top_k() == 0 ? kDefaultTopK : spec.top_k();
}

}  // namespace

JobManager::JobManager(JobManagerOptions options) : options_(std::move(options)) {}

JobManager::~JobManager() {
  std::vector<std::shared_ptr<Job>> jobs;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    for (auto& [id, job] : jobs_) {
      job->cancel = true;
      jobs.push_back(job);
    }
  }
  for (const std::shared_ptr<Job>& job : jobs) {
    if (job->thread.joinable()) job->thread.join();
  }
}

bool JobManager::IsTerminal(v1::JobState state) {
  return state == v1::JOB_SUCCEEDED || state == v1::JOB_FAILED || state == v1::JOB_CANCELLED;
}

absl::StatusOr<std::vector<TuneTask>> JobManager::Validate(v1::JobSpec& spec) const {
  if (spec.device_key().empty()) spec.set_device_key(options_.default_device_key);
  if (spec.has_model()) {
    if (spec.tasks_size() > 0) {
      return absl::InvalidArgumentError("give a job either tasks or a model, not both");
    }
    if (static_cast<int64_t>(spec.model().onnx().size()) > options_.max_model_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("the model is ", spec.model().onnx().size(),
                                                     " bytes; this service accepts at most ",
                                                     options_.max_model_bytes));
    }
    if (!options_.expand_model) {
      return absl::UnimplementedError("this job service does not tune whole models");
    }
    absl::StatusOr<std::vector<v1::TaskSpec>> tasks =
        options_.expand_model(spec.model(), spec.target());
    if (!tasks.ok()) return tasks.status();
    // A network's layers are timed as they run in it: cold (the stored spec keeps no model).
    if (spec.cache() == v1::TIMING_CACHE_UNSPECIFIED) spec.set_cache(v1::TIMING_CACHE_COLD);
    if (spec.name().empty()) {
      spec.set_name(spec.model().path().empty() ? "model" : spec.model().path());
    }
    spec.clear_model();
    for (v1::TaskSpec& t : *tasks) *spec.add_tasks() = std::move(t);
  }
  if (spec.tasks_size() == 0) return absl::InvalidArgumentError("job has no tasks");
  if (spec.tasks_size() > options_.max_tasks_per_job) {
    return absl::InvalidArgumentError(absl::StrCat("a job has at most ", options_.max_tasks_per_job,
                                                   " tasks, got ", spec.tasks_size()));
  }
  if (spec.trials() <= 0 || spec.trials() > options_.max_trials) {
    return absl::InvalidArgumentError(
        absl::StrCat("trials must be in [1, ", options_.max_trials, "], got ", spec.trials()));
  }
  if (spec.device_key().empty()) return absl::InvalidArgumentError("job has no device key");
  if (spec.batch_size() < 0 || spec.batch_size() > kMaxBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_size must be in [1, ", kMaxBatch, "], got ", spec.batch_size()));
  }
  if (spec.top_k() > kMaxTopK) {
    return absl::InvalidArgumentError(
        absl::StrCat("top_k must be at most ", kMaxTopK, ", got ", spec.top_k()));
  }
  if (spec.top_k_rounds() < 0 || spec.top_k_rounds() > kMaxTopKRounds) {
    return absl::InvalidArgumentError(absl::StrCat("top_k_rounds must be in [1, ", kMaxTopKRounds,
                                                   "] (0: ", kDefaultTopKRounds, "), got ",
                                                   spec.top_k_rounds()));
  }
  if (spec.early_stopping() < 0) {
    return absl::InvalidArgumentError("early_stopping must not be negative");
  }
  if (!v1::TimingCache_IsValid(spec.cache())) {
    return absl::InvalidArgumentError(absl::StrCat("unknown timing cache mode ", spec.cache()));
  }
  for (const v1::TaskSpec& t : spec.tasks()) {
    if (!std::isfinite(t.weight()) || t.weight() < 0) {
      return absl::InvalidArgumentError("a task's weight must be finite and not negative");
    }
  }
  std::vector<TuneTask> tasks;
  for (const v1::TaskSpec& t : spec.tasks()) {
    auto task = MakeTaskFromSpec(t, spec.target(), spec.device_key());
    if (!task.ok()) return task.status();
    tasks.push_back(*std::move(task));
  }
  if (spec.strategy().empty()) spec.set_strategy("xgb");
  // Check the strategy name before starting anything.
  if (auto s = options_.make_strategy(spec.strategy(), tasks[0], spec.seed(), nullptr); !s.ok()) {
    return s.status();
  }
  return tasks;
}

absl::StatusOr<std::string> JobManager::Submit(const v1::JobSpec& requested) {
  v1::JobSpec spec = requested;
  absl::StatusOr<std::vector<TuneTask>> tasks = Validate(spec);
  if (!tasks.ok()) return tasks.status();
  {
    absl::MutexLock lock(&mu_);
    if (ActiveLocked() >= options_.max_active_jobs) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the service runs ", options_.max_active_jobs,
                       " jobs at once already; retry when one has ended"));
    }
  }
  auto live = options_.client->LiveDevices(spec.device_key());
  if (!live.ok() && live.status().code() != absl::StatusCode::kNotFound) return live.status();
  if (!live.ok() || *live == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("no live device with key '", spec.device_key(), "' on the farm"));
  }
  int64_t log_job_id = 0;
  if (options_.log != nullptr) {
    db::JobInfo info;
    info.name = spec.name().empty() ? (*tasks)[0].workload.ToString() : spec.name();
    info.target = (*tasks)[0].target.str;
    info.device_key = spec.device_key();
    info.tuner_version = kTunerVersion;
    info.trials = spec.trials();
    auto id = options_.log->CreateJob(info);
    if (!id.ok()) return id.status();
    log_job_id = *id;
    // A program's records name it by hash; its text is kept beside them so best, export and
    // resume can rebuild it.
    for (const TuneTask& t : *tasks) {
      const std::string text = ProgramTextOf(t);
      if (text.empty()) continue;
      std::string name, hash;
      if (absl::Status s = ParseProgramTemplateName(t.workload.template_name, &name, &hash);
          !s.ok()) {
        return s;
      }
      if (absl::Status s = options_.log->SaveProgram(hash, name, text,
                                                     absl::ToUnixSeconds(options_.clock->Now()));
          !s.ok()) {
        return s;
      }
    }
  }
  auto job = std::make_shared<Job>();
  job->tasks = *std::move(tasks);
  std::string id;
  std::vector<std::shared_ptr<Job>> evicted;
  {
    absl::MutexLock lock(&mu_);
    job->seq = next_seq_++;
    id = absl::StrCat("job-", job->seq);
    job->status.set_job_id(id);
    *job->status.mutable_spec() = spec;
    job->status.set_state(v1::JOB_QUEUED);
    job->status.set_trials_total(spec.trials());
    job->status.set_log_job_id(log_job_id);
    job->status.set_farm_job_id(absl::StrCat(id, "-", log_job_id, "-", RandomToken().substr(0, 8)));
    for (size_t i = 0; i < job->tasks.size(); ++i) {
      v1::TaskStatus* ts = job->status.add_tasks();
      *ts->mutable_spec() = spec.tasks(static_cast<int>(i));
      ts->set_workload_template(job->tasks[i].workload.template_name);
      ts->set_workload_args(job->tasks[i].workload.ArgsJson());
    }
    job->status.set_version(1);
    jobs_[id] = job;
    SaveLocked(job.get());
    evicted = EvictLocked();
  }
  for (const std::shared_ptr<Job>& old : evicted) {
    if (old->thread.joinable()) old->thread.join();
  }
  Start(job);
  return id;
}

void JobManager::Start(std::shared_ptr<Job> job) {
  Job* raw = job.get();
  raw->thread = std::thread([this, raw] {
    Run(raw);
    raw->exited = true;
  });
}

absl::StatusOr<int> JobManager::Recover() {
  if (options_.store == nullptr) return 0;
  absl::StatusOr<std::vector<db::StoredJob>> stored = options_.store->Load();
  if (!stored.ok()) return stored.status();
  std::vector<std::shared_ptr<Job>> resume;
  std::vector<std::string> old_farm_ids;
  {
    absl::MutexLock lock(&mu_);
    if (!jobs_.empty()) return absl::FailedPreconditionError("Recover() after Submit()");
    for (const db::StoredJob& row : *stored) {
      auto job = std::make_shared<Job>();
      if (!job->status.ParseFromString(row.status) || job->status.job_id() != row.job_id) {
        ABSL_RAW_LOG(WARNING, "job store: row '%s' is unreadable; skipped", row.job_id.c_str());
        continue;
      }
      job->seq = row.seq;
      next_seq_ = std::max(next_seq_, row.seq + 1);
      jobs_[row.job_id] = job;
      if (IsTerminal(job->status.state())) continue;
      v1::JobSpec spec = job->status.spec();
      absl::StatusOr<std::vector<TuneTask>> tasks = Validate(spec);
      if (!tasks.ok()) {
        job->status.set_state(v1::JOB_FAILED);
        job->status.set_error(absl::StrCat("cannot resume: ", tasks.status().ToString()));
        SaveLocked(job.get());
        continue;
      }
      job->tasks = *std::move(tasks);
      job->status.set_state(v1::JOB_QUEUED);
      job->status.set_resumed(job->status.resumed() + 1);
      old_farm_ids.push_back(job->status.farm_job_id());
      // A new id on the tracker: leftovers of the old run can never mix with the new one's.
      job->status.set_farm_job_id(absl::StrCat(job->status.job_id(), "-", job->status.log_job_id(),
                                               "-", RandomToken().substr(0, 8)));
      job->status.set_version(job->status.version() + 1);
      SaveLocked(job.get());
      resume.push_back(job);
    }
  }
  // What the old runs left queued, leased or unacknowledged on the tracker: those results
  // never reached the log, so the resumed runs measure those configs again (none was counted).
  // Best effort: a tracker that cannot be reached forgets idle jobs by itself.
  for (const std::string& id : old_farm_ids) {
    if (!id.empty()) (void)options_.client->Cancel(id);
  }
  for (const std::shared_ptr<Job>& job : resume) Start(job);
  return static_cast<int>(resume.size());
}

bool JobManager::Stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

int JobManager::ActiveLocked() const {
  int active = 0;
  for (const auto& [id, job] : jobs_) active += IsTerminal(job->status.state()) ? 0 : 1;
  return active;
}

std::vector<std::shared_ptr<JobManager::Job>> JobManager::EvictLocked() {
  std::vector<std::shared_ptr<Job>> finished;
  for (const auto& [id, job] : jobs_) {
    if (IsTerminal(job->status.state()) && (job->exited || !job->thread.joinable())) {
      finished.push_back(job);
    }
  }
  const int excess = static_cast<int>(finished.size()) - std::max(options_.max_kept_jobs, 0);
  if (excess <= 0) return {};
  std::sort(finished.begin(), finished.end(),
            [](const auto& a, const auto& b) { return a->seq < b->seq; });
  finished.resize(excess);
  for (const std::shared_ptr<Job>& job : finished) {
    jobs_.erase(job->status.job_id());
    if (options_.store != nullptr) {
      absl::Status s = options_.store->Forget(job->status.job_id());
      if (!s.ok()) ABSL_RAW_LOG(WARNING, "job store: %s", s.ToString().c_str());
    }
  }
  return finished;
}

void JobManager::SaveLocked(Job* job) {
  if (options_.store == nullptr) return;
  db::StoredJob row;
  row.job_id = job->status.job_id();
  row.seq = job->seq;
  row.status = job->status.SerializeAsString();
  row.terminal = IsTerminal(job->status.state());
  const absl::Time now = options_.clock->Now();
  row.updated_at = absl::ToDoubleSeconds(now - absl::UnixEpoch());
  // The tuning log holds the measurements; a failed save only costs the resume of this status.
  absl::Status s = options_.store->Save(row);
  if (!s.ok()) ABSL_RAW_LOG(WARNING, "job store: %s", s.ToString().c_str());
  job->last_saved = now;
}

void JobManager::Update(Job* job, const std::function<void(v1::JobStatus*)>& update) {
  absl::MutexLock lock(&mu_);
  const v1::JobState before = job->status.state();
  update(&job->status);
  job->status.set_version(job->status.version() + 1);
  if (job->status.state() != before ||
      options_.clock->Now() - job->last_saved >= options_.save_period) {
    SaveLocked(job);
  }
}

void JobManager::Run(Job* job) {
  v1::JobSpec spec;
  std::string id;
  int64_t log_job_id;
  {
    absl::MutexLock lock(&mu_);
    spec = job->status.spec();
    id = job->status.job_id();
    log_job_id = job->status.log_job_id();
  }
  Update(job, [](v1::JobStatus* s) { s->set_state(v1::JOB_RUNNING); });
  auto fail = [&](const absl::Status& st) {
    Update(job, [&](v1::JobStatus* s) {
      s->set_state(v1::JOB_FAILED);
      s->set_error(st.ToString());
    });
  };
  const size_t n = job->tasks.size();
  TrackerMeasurerOptions mo;
  {
    absl::MutexLock lock(&mu_);
    mo.job_id = job->status.farm_job_id();
  }
  if (mo.job_id.empty()) mo.job_id = absl::StrCat(id, "-", log_job_id);
  mo.device_key = spec.device_key();
  mo.timing = options_.timing;
  if (spec.cache() != v1::TIMING_CACHE_UNSPECIFIED) {
    mo.timing.set_flush_cache(spec.cache() == v1::TIMING_CACHE_COLD);
  }
  mo.timeout_ms = options_.measure_timeout_ms;
  mo.seed = spec.seed() + 1;
  mo.cancelled = [job] { return job->cancel.load(); };
  TrackerMeasurer measurer(options_.client, mo);
  std::vector<std::unique_ptr<SearchStrategy>> strategies;
  std::vector<std::unique_ptr<TuningSession>> sessions;
  std::vector<double> weights;
  for (size_t i = 0; i < n; ++i) {
    auto strategy =
        options_.make_strategy(spec.strategy(), job->tasks[i], spec.seed() + i, options_.log);
    if (!strategy.ok()) return fail(strategy.status());
    TuneOptions to;
    to.trials = spec.trials();
    to.batch_size = spec.batch_size() > 0 ? spec.batch_size() : kDefaultBatch;
    to.early_stopping = spec.early_stopping();
    to.top_k = TopK(spec);
    to.top_k_rounds = spec.top_k_rounds() > 0 ? spec.top_k_rounds() : kDefaultTopKRounds;
    to.build_threads = options_.build_threads;
    if (!options_.builder_key.empty()) {
      to.build_batch = [this, task = &job->tasks[i],
                        farm_job = mo.job_id](const std::vector<int64_t>& indices) {
        auto live = options_.client->LiveDevices(options_.builder_key);
        if (live.ok() && *live > 0) {
          auto built = BuildOnFarm(*options_.client, farm_job, options_.builder_key, *task, indices,
                                   absl::Minutes(10));
          if (built.ok()) return *std::move(built);
          // A farm that failed the batch: build here, as without builders.
          ABSL_RAW_LOG(INFO, "building on this machine: %s",
                       std::string(built.status().message()).c_str());
        }
        return BuildAll(*task, indices, options_.build_threads);
      };
    }
    to.db_job_id = log_job_id;
    to.clock = options_.clock;
    if (options_.seed_configs)
      to.seed_configs = options_.seed_configs(job->tasks[i], to.batch_size);
    auto session =
        TuningSession::Start(job->tasks[i], strategy->get(), &measurer, options_.log, to);
    if (!session.ok()) return fail(session.status());
    strategies.push_back(*std::move(strategy));
    sessions.push_back(*std::move(session));
    weights.push_back(spec.tasks(i).weight());
  }
  TaskScheduler scheduler(weights);
  // A task the log already holds measurements for (resumed: they count toward the budget) has
  // had its warm-up: the tasks with none get theirs first, so a tight budget cannot run out
  // on extra rounds of the resumed ones while others were never measured.
  for (size_t i = 0; i < n; ++i) {
    if (sessions[i]->trials() > 0 && std::isfinite(sessions[i]->best_cost_s())) {
      scheduler.Record(static_cast<int>(i), sessions[i]->best_cost_s(), sessions[i]->trials());
    }
  }
  auto total_trials = [&] {
    int t = 0;
    for (const auto& s : sessions) t += s->trials();
    return t;
  };
  auto publish = [&] {
    Update(job, [&](v1::JobStatus* s) {
      s->set_trials_done(total_trials());
      double elapsed = 0;
      for (size_t i = 0; i < n; ++i) {
        TuneProgress p = sessions[i]->Progress();
        v1::TaskStatus* ts = s->mutable_tasks(static_cast<int>(i));
        ts->set_trials_done(p.trials_done);
        ts->set_best_gflops(p.best_gflops);
        ts->set_best_cost_s(std::isfinite(p.best_cost_s) ? p.best_cost_s : 0);
        ts->set_best_config(p.best_config);
        SetTaskTime(p.time, ts->mutable_time());
        elapsed = std::max(elapsed, p.elapsed_s);
      }
      s->set_best_gflops(s->tasks(0).best_gflops());
      s->set_best_config(s->tasks(0).best_config());
      s->set_elapsed_s(elapsed);
      int done = std::max(1, s->trials_done());
      s->set_eta_s(elapsed / done * std::max(0, s->trials_total() - s->trials_done()));
    });
  };
  publish();
  bool cancelled = false;
  while (total_trials() < spec.trials()) {
    if (job->cancel) {
      measurer.Cancel();
      // The service is stopping, not the user: the job stays unfinished in the store and
      // resumes when the service starts again.
      if (Stopping()) return;
      cancelled = true;
      break;
    }
    std::vector<bool> done(n);
    for (size_t i = 0; i < n; ++i) done[i] = sessions[i]->done();
    int pick = scheduler.Pick(done);
    if (pick < 0) break;
    int before = sessions[pick]->trials();
    if (absl::Status s = sessions[pick]->Step(); !s.ok()) {
      if (Stopping()) return;  // a round cut short by the shutdown: resumed later
      if (!job->cancel) return fail(s);
      // Cancelled while measuring (the tracker may be gone): what arrived is in the log.
      measurer.Cancel();
      cancelled = true;
      break;
    }
    scheduler.Record(pick, sessions[pick]->best_cost_s(), sessions[pick]->trials() - before);
    publish();
  }
  for (size_t i = 0; i < n; ++i) {
    auto result = sessions[i]->Finish(cancelled);
    if (!result.ok()) return fail(result.status());
    Update(job, [&](v1::JobStatus* s) {
      v1::TaskStatus* ts = s->mutable_tasks(static_cast<int>(i));
      ts->set_best_gflops(result->best_gflops);
      ts->set_best_cost_s(std::isfinite(result->best_cost_s) ? result->best_cost_s : 0);
      ts->set_best_config(result->best_config);
      SetTaskTime(result->time, ts->mutable_time());
      // The fastest configs' re-measurements are part of the job's time.
      s->set_elapsed_s(std::max(s->elapsed_s(), result->time.total_s));
      if (i == 0) {
        s->set_best_gflops(result->best_gflops);
        s->set_best_config(result->best_config);
      }
    });
  }
  Update(job, [&](v1::JobStatus* s) {
    s->set_state(cancelled ? v1::JOB_CANCELLED : v1::JOB_SUCCEEDED);
    s->set_eta_s(0);
  });
}

absl::StatusOr<v1::JobStatus> JobManager::Get(const std::string& job_id) const {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return absl::NotFoundError(absl::StrCat("no job '", job_id, "'"));
  return it->second->status;
}

absl::StatusOr<v1::JobStatus> JobManager::WaitForChange(const std::string& job_id,
                                                        int64_t after_version,
                                                        absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return absl::NotFoundError(absl::StrCat("no job '", job_id, "'"));
  // Held while waiting: the job may be evicted meanwhile.
  std::shared_ptr<const Job> job = it->second;
  auto changed = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return job->status.version() > after_version || IsTerminal(job->status.state());
  };
  mu_.AwaitWithTimeout(absl::Condition(&changed), timeout);
  return job->status;
}

absl::StatusOr<v1::JobStatus> JobManager::Cancel(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return absl::NotFoundError(absl::StrCat("no job '", job_id, "'"));
  it->second->cancel = true;
  return it->second->status;
}

std::vector<v1::JobStatus> JobManager::List() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::JobStatus> out;
  for (const auto& [id, job] : jobs_) out.push_back(job->status);
  return out;
}

}  // namespace tunefarm::tuner
