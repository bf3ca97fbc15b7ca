#include "tracker/tracker_core.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/content_hash.h"
#include "common/random_token.h"

namespace tunefarm {
namespace {

// Longest a single long poll may block, whatever the caller asks.
constexpr absl::Duration kMaxWait = absl::Seconds(30);
// Measurement timeout used when a request leaves timeout_ms at 0.
constexpr int kDefaultTimeoutMs = 10000;
// Window of the throughput figure in Summary.
constexpr absl::Duration kThroughputWindow = absl::Minutes(1);

// Events per second of `times` (ascending) over the last kThroughputWindow before `now`, or over
// the time since `since` when that is shorter.
double RateOver(const std::deque<absl::Time>& times, absl::Time now, absl::Time since) {
  const auto first = std::lower_bound(times.begin(), times.end(), now - kThroughputWindow);
  const double window =
      std::min(absl::ToDoubleSeconds(now - since), absl::ToDoubleSeconds(kThroughputWindow));
  return window > 0 ? static_cast<double>(times.end() - first) / window : 0;
}

absl::Duration ClampWait(int wait_ms) {
  return std::min(absl::Milliseconds(std::max(wait_ms, 0)), kMaxWait);
}

// Unique per process start: wall time plus randomness (an injected clock may repeat itself).
std::string NewIncarnation() {
  absl::BitGen gen;
  return absl::StrCat(absl::ToUnixMicros(absl::Now()), "-", absl::Uniform<uint64_t>(gen));
}

// Names one registration of one worker process, for the lease holders of a task.
std::string HolderId(const std::string& worker_id, const std::string& incarnation) {
  return absl::StrCat(worker_id, "/", incarnation);
}

}  // namespace

TrackerCore::TrackerCore(TrackerOptions options, Clock* clock)
    : options_(std::move(options)),
      clock_(clock),
      started_(clock->Now()),
      incarnation_(NewIncarnation()) {
  absl::MutexLock lock(&mu_);
  for (const std::string& key : options_.known_keys) known_keys_.insert(key);
}

TrackerCore::~TrackerCore() { Shutdown(); }

absl::StatusOr<v1::RegisterResponse> TrackerCore::Register(const v1::RegisterRequest& request) {
  if (request.worker_id().empty() || request.incarnation().empty()) {
    return absl::InvalidArgumentError("Register: worker_id and incarnation must be set");
  }
  if (request.device().key().empty()) {
    return absl::InvalidArgumentError("Register: device.key must be set (e.g. cpu-znver4)");
  }
  absl::MutexLock lock(&mu_);
  auto it = workers_.find(request.worker_id());
  const bool holds_key =
      it != workers_.end() && SecretEquals(request.session_key(), it->second.session_key);
  if (it != workers_.end() && !it->second.lost && !holds_key) {
    return absl::AlreadyExistsError(absl::StrCat(
        "worker id '", request.worker_id(), "' is held by a live worker (last heard from ",
        absl::FormatDuration(clock_->Now() - it->second.last_heartbeat),
        " ago); it is free once that worker leaves or is lost after ",
        absl::FormatDuration(options_.heartbeat_timeout),
        " of silence. Give this one another --worker_id"));
  }
  if (it == workers_.end() && static_cast<int>(workers_.size()) >= options_.max_workers) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the tracker holds ", options_.max_workers, " workers already"));
  }
  if (!known_keys_.contains(request.device().key()) &&
      static_cast<int>(known_keys_.size()) >= options_.max_keys) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the tracker knows ", options_.max_keys, " device keys already"));
  }
  if (it != workers_.end() && it->second.incarnation != request.incarnation()) {
    // A new process under the same name: the old one is gone with whatever it leased.
    RequeueAllOfWorkerLocked(it->second);
    workers_.erase(it);
    it = workers_.end();
  }
  const bool fresh = it == workers_.end();
  Worker& worker = fresh ? workers_[request.worker_id()] : it->second;
  if (fresh) worker.registered = clock_->Now();
  // The holder of the key renews its registration and keeps the key; anyone else taking a free
  // or lost id gets a new one, so a key learnt before is worth nothing.
  if (!holds_key || worker.session_key.empty()) worker.session_key = RandomToken();
  worker.incarnation = request.incarnation();
  worker.device = request.device();
  worker.last_heartbeat = clock_->Now();
  worker.lost = false;
  known_keys_.insert(request.device().key());
  QueueOfLocked(request.device().key());
  v1::RegisterResponse response;
  response.set_heartbeat_interval_ms(
      static_cast<int32_t>(absl::ToInt64Milliseconds(options_.heartbeat_interval)));
  response.set_heartbeat_timeout_ms(
      static_cast<int32_t>(absl::ToInt64Milliseconds(options_.heartbeat_timeout)));
  response.set_session_key(worker.session_key);
  response.set_polls_count_as_heartbeats(true);
  return response;
}

absl::StatusOr<TrackerCore::Worker*> TrackerCore::FindWorkerLocked(const std::string& id,
                                                                   const std::string& incarnation,
                                                                   const std::string& session_key) {
  auto it = workers_.find(id);
  if (it == workers_.end() || it->second.lost) {
    return absl::NotFoundError(
        absl::StrCat("worker '", id, "' is not registered (or was lost); register again"));
  }
  if (it->second.incarnation != incarnation) {
    return absl::AbortedError(absl::StrCat("worker '", id, "' restarted with a new incarnation"));
  }
  if (!SecretEquals(session_key, it->second.session_key)) {
    return absl::PermissionDeniedError(
        absl::StrCat("worker '", id, "': the session key is not this registration's"));
  }
  return &it->second;
}

absl::StatusOr<v1::HeartbeatResponse> TrackerCore::Heartbeat(const v1::HeartbeatRequest& request) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Worker*> worker =
      FindWorkerLocked(request.worker_id(), request.incarnation(), request.session_key());
  if (!worker.ok()) return worker.status();
  Worker& w = **worker;
  w.last_heartbeat = clock_->Now();
  w.noise_cv = request.noise_cv();
  if (options_.noise_threshold > 0) {
    bool was_noisy = w.noisy;
    if (w.noise_cv > options_.noise_threshold) w.noisy = true;
    if (w.noise_cv < 0.8 * options_.noise_threshold) w.noisy = false;
    // Cleared: parked workers look again (this one may take the work now). Became noisy:
    // those parked behind it may be the quiet ones left, or may have to measure anyway.
    if (was_noisy != w.noisy) QueueOfLocked(w.device.key()).noisy.SignalAll();
  }
  v1::HeartbeatResponse response;
  response.set_noisy(w.noisy);
  return response;
}

absl::StatusOr<v1::LeaseResponse> TrackerCore::Lease(const v1::LeaseRequest& request) {
  const absl::Time wait_until = clock_->Now() + ClampWait(request.wait_ms());
  absl::MutexLock lock(&mu_);
  if (shutdown_) return absl::UnavailableError("tracker is shutting down");
  absl::StatusOr<Worker*> found =
      FindWorkerLocked(request.worker_id(), request.incarnation(), request.session_key());
  if (!found.ok()) return found.status();
  Worker* worker = *found;
  worker->last_heartbeat = clock_->Now();
  const std::string holder = HolderId(request.worker_id(), request.incarnation());
  for (const v1::MeasureResult& result : request.results()) {
    AcceptResultLocked(request.worker_id(), holder, result);
  }
  for (const std::string& id : request.returned_request_ids()) {
    if (worker->leased.contains(id)) RequeueLocked(id, /*count_attempt=*/false);
  }
  v1::LeaseResponse response;
  if (request.leaving()) {
    RequeueAllOfWorkerLocked(*worker);
    QueueOfLocked(worker->device.key()).noisy.SignalAll();
    workers_.erase(request.worker_id());
    return response;
  }
  const std::string key = worker->device.key();
  const int want = std::min(request.max_tasks(), options_.max_lease_batch);
  if (want <= 0) return response;
  KeyQueue& queue = QueueOfLocked(key);
  bool timed_out = false;
  while (response.tasks_size() == 0 && !timed_out) {
    // The worker may have been replaced or lost while this call waited.
    auto it = workers_.find(request.worker_id());
    if (shutdown_ || it == workers_.end() || it->second.lost ||
        it->second.incarnation != request.incarnation()) {
      // Perhaps woken for work this call can no longer take (the worker left, or its
      // cancelled poll outlived it): hand the wake-up on to another waiter.
      if (queue.queued > 0) WakeLeasesLocked(queue, 1);
      return response;
    }
    worker = &it->second;
    const bool parked = ParkedLocked(request.worker_id(), *worker);
    // Perhaps woken for work it may no longer take (it became noisy while it waited): the
    // wake-up goes on to a worker that can.
    if (parked && queue.queued > 0) WakeLeasesLocked(queue, 1);
    if (queue.queued == 0 || parked) {
      timed_out = WaitForWorkLocked(queue, *worker, parked, wait_until);
      continue;
    }
    const absl::Time now = clock_->Now();
    while (response.tasks_size() < want) {
      std::string id = PopNextLocked(queue, key, request.worker_id());
      if (id.empty()) break;
      Task& task = tasks_.at(id);
      ++task.attempts;
      dispatch_latency_.Observe(absl::ToDoubleSeconds(now - task.queued_at));
      task.worker_id = request.worker_id();
      task.holders.insert(holder);
      int timeout_ms =
          task.request.timeout_ms() > 0 ? task.request.timeout_ms() : kDefaultTimeoutMs;
      task.deadline = now + absl::Milliseconds(timeout_ms) + options_.lease_grace;
      worker->leased.insert(id);
      ++queue.leased;
      v1::MeasureRequest* out = response.add_tasks();
      *out = task.request;
      FillArtifactLocked(*worker, out->mutable_artifact());
      if (out->has_reference_artifact()) {
        FillArtifactLocked(*worker, out->mutable_reference_artifact());
      }
    }
    if (response.tasks_size() == 0) {
      // Everything queued asks for another worker: let it have it, and wait for new work.
      queue.work.SignalAll();
      timed_out = WaitForWorkLocked(queue, *worker, /*parked=*/false, wait_until);
    } else if (queue.queued > 0) {
      // More work than this call takes: pass the wake-up on to another waiting worker.
      WakeLeasesLocked(queue, 1);
    }
  }
  LeaseEndLocked(request);
  return response;
}

bool TrackerCore::ParkedLocked(const std::string& worker_id, const Worker& worker) const {
  if (!worker.noisy) return false;
  for (const auto& [id, w] : workers_) {
    if (id != worker_id && !w.lost && !w.noisy && w.device.key() == worker.device.key()) {
      return true;
    }
  }
  return false;
}

bool TrackerCore::WaitForWorkLocked(KeyQueue& queue, Worker& worker, bool parked,
                                    absl::Time wait_until) {
  // While it waits here the worker is connected: it counts as alive until the wait ends, so a
  // long poll needs no heartbeats beside it.
  worker.polling_until = wait_until;
  // A parked worker takes no work: it waits apart, so the wake-ups meant for workers that can
  // take work never go to it.
  if (parked) return clock_->WaitWithDeadline(&queue.noisy, &mu_, wait_until);
  ++queue.waiting;
  const bool timed_out = clock_->WaitWithDeadline(&queue.work, &mu_, wait_until);
  --queue.waiting;
  return timed_out;
}

void TrackerCore::LeaseEndLocked(const v1::LeaseRequest& request) {
  auto it = workers_.find(request.worker_id());
  if (it != workers_.end() && it->second.incarnation == request.incarnation()) {
    it->second.polling_until = absl::InfinitePast();
    it->second.last_heartbeat = clock_->Now();
  }
}

void TrackerCore::WakeLeasesLocked(KeyQueue& queue, int requests) {
  // One waiting lease per new request (each takes at least one): waking every waiter for one
  // request cost a 1,000-worker farm a core.
  for (int i = 0; i < std::min(requests, queue.waiting); ++i) queue.work.Signal();
}

TrackerCore::JobQueue& TrackerCore::JobQueueLocked(KeyQueue& queue, const std::string& job_id) {
  if (auto it = queue.jobs.find(job_id); it != queue.jobs.end()) return it->second;
  // A job (new, or back with work) starts level with the least-served job that has queued
  // work, so it neither starves nor gets a burst of catch-up share.
  int64_t floor = -1;
  for (const auto& [id, jq] : queue.jobs) {
    if (floor < 0 || jq.served < floor) floor = jq.served;
  }
  JobQueue& jq = queue.jobs[job_id];
  jq.served = std::max<int64_t>(floor, 0);
  return jq;
}

void TrackerCore::FillArtifactLocked(Worker& worker, v1::Artifact* a) {
  if (a->hash().empty()) return;  // a build request: nothing to send
  if (worker.artifacts_sent.insert(a->hash()).second) {
    auto it = artifacts_.find(a->hash());
    if (it != artifacts_.end()) a->set_content(it->second.content);
  }
}

absl::StatusOr<v1::Artifact> TrackerCore::FetchArtifact(const v1::FetchArtifactRequest& request) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Worker*> worker =
      FindWorkerLocked(request.worker_id(), request.incarnation(), request.session_key());
  if (!worker.ok()) return worker.status();
  // Only the artifacts of this worker's own leases: a worker cannot read other keys' kernels.
  bool leased = false;
  for (const std::string& id : (*worker)->leased) {
    auto task = tasks_.find(id);
    if (task == tasks_.end()) continue;
    const v1::MeasureRequest& r = task->second.request;
    if (r.artifact().hash() == request.hash() ||
        (r.has_reference_artifact() && r.reference_artifact().hash() == request.hash())) {
      leased = true;
      break;
    }
  }
  auto it = artifacts_.find(request.hash());
  if (!leased || it == artifacts_.end()) {
    return absl::NotFoundError(absl::StrCat("artifact ", request.hash(),
                                            " is not part of any request leased to this worker"));
  }
  (*worker)->artifacts_sent.insert(request.hash());
  v1::Artifact artifact;
  artifact.set_hash(request.hash());
  artifact.set_content(it->second.content);
  return artifact;
}

absl::Status TrackerCore::ValidateRequestLocked(const v1::MeasureRequest& r) const {
  auto check_artifact = [&](const v1::Artifact& a, absl::string_view what) -> absl::Status {
    if (a.hash().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("request '", r.request_id(), "': ", what, ".hash is empty"));
    }
    if (!a.content().empty()) {
      if (ContentHash(a.content()) != a.hash()) {
        return absl::InvalidArgumentError(absl::StrCat("request '", r.request_id(), "': ", what,
                                                       ".hash is not the SHA-256 of its content"));
      }
    } else if (!artifacts_.contains(a.hash())) {
      return absl::InvalidArgumentError(
          absl::StrCat("request '", r.request_id(), "': ", what, " ", a.hash(),
                       " has no content and the tracker does not hold it; send the bytes"));
    }
    return absl::OkStatus();
  };
  if (r.request_id().empty()) return absl::InvalidArgumentError("a request has no request_id");
  if (r.kernel_name().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("request '", r.request_id(), "': no kernel"));
  }
  if (r.has_build()) {
    // A builder's request: what to compile, nothing to load.
    if (!r.artifact().hash().empty() || !r.artifact().content().empty() ||
        r.has_reference_artifact()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "request '", r.request_id(), "': a build request carries no artifact or reference"));
    }
    if (r.build().task().template_name().empty() == r.build().task().program().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "request '", r.request_id(), "': a build names a template or a program (one of them)"));
    }
    if (r.build().config_index() < -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("request '", r.request_id(), "': negative config index"));
    }
  } else if (absl::Status s = check_artifact(r.artifact(), "artifact"); !s.ok()) {
    return s;
  }
  if (r.has_reference_artifact()) {
    if (absl::Status s = check_artifact(r.reference_artifact(), "reference_artifact"); !s.ok()) {
      return s;
    }
  }
  const v1::TimingOptions& t = r.timing();
  if (t.number() < 0 || t.repeat() < 0 || t.min_repeat_ms() < 0 || t.cooldown_ms() < 0 ||
      t.max_time_ms() < 0 || t.target_rel_ci() < 0 || r.timeout_ms() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("request '", r.request_id(), "': negative timing values"));
  }
  for (const v1::TensorArg& arg : r.tensors()) {
    for (int64_t d : arg.spec().shape()) {
      if (d < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("request '", r.request_id(), "': negative tensor dimension"));
      }
    }
  }
  for (const v1::PackedArg& p : r.packed_args()) {
    if (p.arg_index() < 0 || p.arg_index() >= r.tensors_size() ||
        r.tensors(p.arg_index()).is_output()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "request '", r.request_id(), "': packed argument ", p.arg_index(), " is not an input"));
    }
    for (int64_t d : p.spec().shape()) {
      if (d < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("request '", r.request_id(), "': negative packed tensor dimension"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::SubmitResponse> TrackerCore::Submit(const v1::SubmitRequest& request) {
  if (request.job_id().empty()) return absl::InvalidArgumentError("Submit: job_id is empty");
  if (request.device_key().empty()) {
    return absl::InvalidArgumentError("Submit: device_key is empty");
  }
  absl::MutexLock lock(&mu_);
  if (draining_ || shutdown_) return absl::UnavailableError("tracker is draining");
  if (!known_keys_.contains(request.device_key())) {
    std::vector<std::string> keys(known_keys_.begin(), known_keys_.end());
    std::sort(keys.begin(), keys.end());
    return absl::NotFoundError(absl::StrCat("no device with key '", request.device_key(),
                                            "' has registered; known keys: [",
                                            absl::StrJoin(keys, ", "), "]"));
  }
  absl::flat_hash_set<std::string> batch_ids;
  std::vector<const v1::MeasureRequest*> fresh;
  int duplicates = 0;
  for (const v1::MeasureRequest& r : request.requests()) {
    if (absl::Status s = ValidateRequestLocked(r); !s.ok()) return s;
    if (tasks_.contains(r.request_id()) || completed_.contains(r.request_id()) ||
        !batch_ids.insert(r.request_id()).second) {
      ++duplicates;
      continue;
    }
    fresh.push_back(&r);
  }
  KeyQueue& queue = QueueOfLocked(request.device_key());
  if (queue.queued + static_cast<int64_t>(fresh.size()) > options_.max_queue_per_key) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "queue of '", request.device_key(), "' is full (", queue.queued, " queued, limit ",
        options_.max_queue_per_key, "); retry after fetching results"));
  }
  Job& job = jobs_[request.job_id()];
  job.priority = request.priority();
  job.last_call = clock_->Now();
  JobQueue* job_queue = fresh.empty() ? nullptr : &JobQueueLocked(queue, request.job_id());
  for (const v1::MeasureRequest* r : fresh) {
    Task task;
    task.request = *r;
    task.request.mutable_artifact()->clear_content();
    if (task.request.has_reference_artifact()) {
      task.request.mutable_reference_artifact()->clear_content();
    }
    task.job_id = request.job_id();
    task.key = request.device_key();
    task.queued_at = job.last_call;
    if (!r->has_build()) RefArtifactLocked(r->artifact());
    if (r->has_reference_artifact()) RefArtifactLocked(r->reference_artifact());
    job_queue->queued.push_back(r->request_id());
    tasks_.emplace(r->request_id(), std::move(task));
    ++job.pending;
    ++queue.queued;
  }
  WakeLeasesLocked(queue, static_cast<int>(fresh.size()));
  v1::SubmitResponse response;
  response.set_accepted(static_cast<int32_t>(fresh.size()));
  response.set_duplicates(duplicates);
  response.set_tracker_incarnation(incarnation_);
  return response;
}

absl::StatusOr<v1::FetchResultsResponse> TrackerCore::FetchResults(
    const v1::FetchResultsRequest& request) {
  const absl::Time wait_until = clock_->Now() + ClampWait(request.wait_ms());
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(request.job_id());
  if (it == jobs_.end()) {
    return absl::NotFoundError(absl::StrCat("unknown job '", request.job_id(),
                                            "' (never submitted, finished and acknowledged, or "
                                            "lost in a tracker restart)"));
  }
  Job& job = it->second;
  job.last_call = clock_->Now();
  for (const std::string& id : request.ack()) job.unacked.erase(id);
  ++job.waiters;
  while (job.outbox.empty() && job.unacked.empty() && job.pending > 0 && !shutdown_) {
    if (clock_->WaitWithDeadline(&job.ready, &mu_, wait_until)) break;
  }
  --job.waiters;
  v1::FetchResultsResponse response;
  const size_t limit = request.max_results() > 0 ? static_cast<size_t>(request.max_results())
                                                 : job.outbox.size() + job.unacked.size();
  // Sent before but never acknowledged (the reply was lost): send again.
  for (const auto& [id, result] : job.unacked) {
    if (static_cast<size_t>(response.results_size()) >= limit) break;
    *response.add_results() = result;
  }
  while (!job.outbox.empty() && static_cast<size_t>(response.results_size()) < limit) {
    v1::MeasureResult& result = job.outbox.front();
    *response.add_results() = result;
    job.unacked.emplace(result.request_id(), std::move(result));
    job.outbox.pop_front();
  }
  response.set_pending(job.pending);
  response.set_tracker_incarnation(incarnation_);
  // Everything finished and taken over: forget the job (its per-key queue entries too).
  if (job.pending == 0 && job.outbox.empty() && job.unacked.empty() && job.waiters == 0) {
    for (auto& [key, queue] : queues_) {
      auto jq = queue.jobs.find(request.job_id());
      if (jq != queue.jobs.end() && jq->second.queued.empty()) queue.jobs.erase(jq);
    }
    jobs_.erase(it);
  }
  return response;
}

int TrackerCore::WaitingLeases(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  auto it = queues_.find(key);
  return it == queues_.end() ? 0 : it->second.waiting;
}

int TrackerCore::jobs() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(jobs_.size());
}

absl::StatusOr<v1::CancelResponse> TrackerCore::Cancel(const v1::CancelRequest& request) {
  absl::MutexLock lock(&mu_);
  auto job_it = jobs_.find(request.job_id());
  if (job_it == jobs_.end()) {
    return absl::NotFoundError(absl::StrCat("unknown job '", request.job_id(), "'"));
  }
  int cancelled = 0;
  std::vector<std::string> ids;
  for (const auto& [id, task] : tasks_) {
    if (task.job_id == request.job_id()) ids.push_back(id);
  }
  for (const std::string& id : ids) {
    Task& task = tasks_.at(id);
    KeyQueue& queue = QueueOfLocked(task.key);
    if (task.worker_id.empty()) {
      --queue.queued;
    } else {
      --queue.leased;
      if (auto w = workers_.find(task.worker_id); w != workers_.end()) w->second.leased.erase(id);
    }
    ReleaseTaskArtifactsLocked(task);
    RememberFinishedLocked(id);
    tasks_.erase(id);
    ++cancelled;
  }
  for (auto& [key, queue] : queues_) queue.jobs.erase(request.job_id());
  // Its results go too: a cancelled job's client takes nothing more (a job service resuming
  // a job after its own restart cancels the old run's leftovers this way).
  Job& job = job_it->second;
  job.pending = 0;
  job.outbox.clear();
  job.unacked.clear();
  job.ready.SignalAll();
  if (job.waiters == 0) jobs_.erase(job_it);
  v1::CancelResponse response;
  response.set_cancelled(cancelled);
  return response;
}

void TrackerCore::AcceptResultLocked(const std::string& worker_id, const std::string& holder,
                                     v1::MeasureResult result) {
  auto it = tasks_.find(result.request_id());
  if (it == tasks_.end()) return;  // duplicate, cancelled, or from before a tracker restart
  Task& task = it->second;
  if (!task.holders.contains(holder)) {
    ++results_refused_;  // a worker reporting on a request it was never given
    return;
  }
  KeyQueue& queue = QueueOfLocked(task.key);
  if (task.worker_id.empty()) {
    // Re-queued (lease expired) but the first worker answered after all: take its result.
    auto jq = queue.jobs.find(task.job_id);
    if (jq != queue.jobs.end()) {
      auto& q = jq->second.queued;
      q.erase(std::remove(q.begin(), q.end(), result.request_id()), q.end());
      if (q.empty()) queue.jobs.erase(jq);
    }
    --queue.queued;
  } else {
    --queue.leased;
    if (auto w = workers_.find(task.worker_id); w != workers_.end()) {
      w->second.leased.erase(result.request_id());
    }
  }
  if (auto w = workers_.find(worker_id); w != workers_.end()) {
    ++w->second.completed;
    const absl::Time now = clock_->Now();
    w->second.recent.push_back(now);
    while (w->second.recent.front() < now - kThroughputWindow) w->second.recent.pop_front();
    if (result.device_key().empty()) result.set_device_key(w->second.device.key());
  }
  if (result.worker_id().empty()) result.set_worker_id(worker_id);
  std::string id = result.request_id();
  CompleteLocked(id, std::move(result));
}

void TrackerCore::RememberFinishedLocked(const std::string& request_id) {
  if (!completed_.insert(request_id).second) return;
  completed_order_.push_back(request_id);
  while (static_cast<int>(completed_order_.size()) > std::max(options_.max_finished_ids, 1)) {
    completed_.erase(completed_order_.front());
    completed_order_.pop_front();
  }
}

void TrackerCore::CompleteLocked(const std::string& request_id, v1::MeasureResult result) {
  auto it = tasks_.find(request_id);
  Task& task = it->second;
  ReleaseTaskArtifactsLocked(task);
  // A class this build does not know (a newer worker's) is counted by its number.
  const std::string error_class = v1::ErrorClass_Name(result.error());
  results_by_class_.Add(error_class.empty() ? absl::StrCat("unknown_", result.error())
                                            : absl::AsciiStrToLower(error_class));
  auto job = jobs_.find(task.job_id);
  if (job != jobs_.end()) {
    --job->second.pending;
    job->second.outbox.push_back(std::move(result));
    job->second.ready.SignalAll();
  }
  RememberFinishedLocked(request_id);
  tasks_.erase(it);
  const absl::Time now = clock_->Now();
  recent_completions_.push_back(now);
  while (!recent_completions_.empty() && recent_completions_.front() < now - kThroughputWindow) {
    recent_completions_.pop_front();
  }
  ++results_total_;
}

void TrackerCore::RequeueLocked(const std::string& request_id, bool count_attempt) {
  auto it = tasks_.find(request_id);
  if (it == tasks_.end()) return;
  Task& task = it->second;
  KeyQueue& queue = QueueOfLocked(task.key);
  if (!task.worker_id.empty()) {
    --queue.leased;
    if (auto w = workers_.find(task.worker_id); w != workers_.end()) {
      w->second.leased.erase(request_id);
    }
    task.worker_id.clear();
  }
  if (!count_attempt) --task.attempts;
  if (task.attempts >= options_.max_attempts) {
    v1::MeasureResult result;
    result.set_request_id(request_id);
    result.set_error(v1::DEVICE_LOST);
    result.set_message(
        absl::StrCat("the devices measuring this request were lost ", task.attempts, " times"));
    result.set_device_key(task.key);
    CompleteLocked(request_id, std::move(result));
    return;
  }
  JobQueueLocked(queue, task.job_id).queued.push_front(request_id);
  task.queued_at = clock_->Now();
  ++queue.queued;
  WakeLeasesLocked(queue, 1);
}

void TrackerCore::RequeueAllOfWorkerLocked(Worker& worker) {
  std::vector<std::string> ids(worker.leased.begin(), worker.leased.end());
  for (const std::string& id : ids) RequeueLocked(id, /*count_attempt=*/true);
  worker.leased.clear();
}

std::string TrackerCore::PopNextLocked(KeyQueue& queue, const std::string& key,
                                       const std::string& worker_id) {
  // Whether another worker could take a request that avoids this one; computed only when such
  // a request comes up, so ordinary dispatch does not scan the workers.
  std::optional<bool> other_worker;
  auto eligible = [&](const std::string& request_id) {
    auto it = tasks_.find(request_id);
    if (it == tasks_.end() || it->second.request.avoid_worker_id() != worker_id) return true;
    if (!other_worker.has_value()) {
      other_worker = false;
      for (const auto& [id, w] : workers_) {
        if (id != worker_id && !w.lost && !w.noisy && w.device.key() == key) {
          other_worker = true;
          break;
        }
      }
    }
    return !*other_worker;
  };
  JobQueue* best = nullptr;
  const std::string* best_job = nullptr;
  std::deque<std::string>::iterator best_it;
  int best_priority = 0;
  for (auto& [job_id, jq] : queue.jobs) {
    auto pick = std::find_if(jq.queued.begin(), jq.queued.end(), eligible);
    if (pick == jq.queued.end()) continue;
    auto job = jobs_.find(job_id);
    int priority = job == jobs_.end() ? 0 : job->second.priority;
    if (best == nullptr || priority > best_priority ||
        (priority == best_priority && jq.served < best->served)) {
      best = &jq;
      best_job = &job_id;
      best_it = pick;
      best_priority = priority;
    }
  }
  if (best == nullptr) return "";
  std::string id = std::move(*best_it);
  best->queued.erase(best_it);
  ++best->served;
  --queue.queued;
  // Only jobs with queued work stay in the key's queue, so dispatch never walks finished jobs.
  if (best->queued.empty()) queue.jobs.erase(*best_job);
  return id;
}

void TrackerCore::RefArtifactLocked(const v1::Artifact& a) {
  StoredArtifact& stored = artifacts_[a.hash()];
  if (stored.content.empty() && !a.content().empty()) stored.content = a.content();
  ++stored.refs;
}

void TrackerCore::UnrefArtifactLocked(const std::string& hash) {
  auto it = artifacts_.find(hash);
  if (it != artifacts_.end() && --it->second.refs <= 0) artifacts_.erase(it);
}

void TrackerCore::ReleaseTaskArtifactsLocked(const Task& task) {
  if (!task.request.has_build()) UnrefArtifactLocked(task.request.artifact().hash());
  if (task.request.has_reference_artifact()) {
    UnrefArtifactLocked(task.request.reference_artifact().hash());
  }
}

TrackerCore::KeyQueue& TrackerCore::QueueOfLocked(const std::string& key) { return queues_[key]; }

void TrackerCore::CheckLiveness() {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  std::vector<std::string> forget;
  for (auto& [id, worker] : workers_) {
    if (worker.lost) {
      if (now - worker.lost_since > options_.forget_lost_after) forget.push_back(id);
      continue;
    }
    if (now - worker.last_heartbeat > options_.heartbeat_timeout && now > worker.polling_until) {
      worker.lost = true;
      worker.lost_since = now;
      worker.artifacts_sent.clear();
      RequeueAllOfWorkerLocked(worker);
      QueueOfLocked(worker.device.key()).work.SignalAll();
      QueueOfLocked(worker.device.key()).noisy.SignalAll();
    }
  }
  for (const std::string& id : forget) workers_.erase(id);
  // Expired leases: only leased requests can expire, and each is in its worker's set, so the
  // check does not grow with what is queued.
  std::vector<std::string> expired;
  for (const auto& [id, worker] : workers_) {
    for (const std::string& request_id : worker.leased) {
      auto task = tasks_.find(request_id);
      if (task != tasks_.end() && now > task->second.deadline) expired.push_back(request_id);
    }
  }
  for (const std::string& id : expired) RequeueLocked(id, /*count_attempt=*/true);
  // Idle jobs are forgotten after minutes: sweeping them once a second is enough.
  if (now - last_job_sweep_ < absl::Seconds(1)) return;
  last_job_sweep_ = now;
  std::vector<std::string> idle;
  for (const auto& [id, job] : jobs_) {
    if (job.pending == 0 && job.waiters == 0 &&
        now - job.last_call > options_.forget_idle_jobs_after) {
      idle.push_back(id);
    }
  }
  for (const std::string& id : idle) {
    for (auto& [key, queue] : queues_) queue.jobs.erase(id);
    jobs_.erase(id);
  }
}

v1::FarmSummary TrackerCore::Summary() const {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  v1::FarmSummary summary;
  absl::flat_hash_map<std::string, int> live;
  std::vector<std::string> ids;
  for (const auto& [id, worker] : workers_) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  for (const std::string& id : ids) {
    const Worker& worker = workers_.at(id);
    *summary.add_devices() = worker.device;
    v1::DeviceStatus* status = summary.add_device_status();
    status->set_worker_id(id);
    *status->mutable_device() = worker.device;
    status->set_state(worker.lost              ? v1::DEVICE_STATE_LOST
                      : worker.noisy           ? v1::DEVICE_STATE_NOISY
                      : !worker.leased.empty() ? v1::DEVICE_STATE_BUSY
                                               : v1::DEVICE_STATE_IDLE);
    status->set_leased(static_cast<int32_t>(worker.leased.size()));
    status->set_noise_cv(worker.noise_cv);
    status->set_completed(worker.completed);
    status->set_results_per_second(RateOver(worker.recent, now, worker.registered));
    status->set_seconds_since_heartbeat(absl::ToDoubleSeconds(now - worker.last_heartbeat));
    if (!worker.lost) ++live[worker.device.key()];
  }
  std::vector<std::string> keys;
  for (const auto& [key, queue] : queues_) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) {
    const KeyQueue& queue = queues_.at(key);
    v1::QueueStatus* q = summary.add_queues();
    q->set_device_key(key);
    q->set_queued(queue.queued);
    q->set_leased(queue.leased);
    q->set_live_devices(live[key]);
    int jobs = 0;
    for (const auto& [id, jq] : queue.jobs) jobs += jq.queued.empty() ? 0 : 1;
    q->set_jobs(jobs);
  }
  summary.set_results_per_second(RateOver(recent_completions_, now, started_));
  summary.set_results_total(results_total_);
  summary.set_results_refused(results_refused_);
  summary.set_draining(draining_);
  return summary;
}

int TrackerCore::LiveDevices(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  int n = 0;
  for (const auto& [id, worker] : workers_) n += (!worker.lost && worker.device.key() == key);
  return n;
}

void TrackerCore::StartDrain() {
  absl::MutexLock lock(&mu_);
  draining_ = true;
}

bool TrackerCore::Drained() const {
  absl::MutexLock lock(&mu_);
  if (!tasks_.empty()) return false;
  for (const auto& [id, job] : jobs_) {
    if (!job.outbox.empty() || !job.unacked.empty()) return false;
  }
  return true;
}

void TrackerCore::Shutdown() {
  absl::MutexLock lock(&mu_);
  shutdown_ = true;
  for (auto& [key, queue] : queues_) {
    queue.work.SignalAll();
    queue.noisy.SignalAll();
  }
  for (auto& [id, job] : jobs_) job.ready.SignalAll();
}

}  // namespace tunefarm
