// The tracker's transport-free core: device registry, per-key queues with priorities and fair
// share, leases with heartbeats, re-queue on failure, de-duplicated results, farm summary.
//
// Delivery is at least once towards workers and exactly once towards clients: a request whose
// lease expires or whose worker disappears goes back to the front of its job's queue, and the
// first result reported for a request id by a worker that was leased it wins; later ones, and
// results from workers never leased that request, are dropped.
//
// A registration is a worker_id, the worker's incarnation (one per process start) and a session
// key the tracker draws at random. Every worker call carries all three. Only the holder of the
// session key can renew or replace a live registration; the id is free again once the worker
// is lost or has left. A result stays with the
// tracker until the client acknowledges it (FetchResultsRequest.ack), so a lost reply loses
// nothing; a job whose requests are all finished and acknowledged is forgotten.
//
// The state is in memory only. A restarted tracker has a new incarnation (in every Submit and
// FetchResults reply); clients resubmit what they still wait for under the same request ids,
// and workers re-register by themselves. See tracker/README.md for why the queues are not
// made durable.
//
// Thread-safe. Lease() and FetchResults() are long polls that block the calling thread up to
// their `wait_ms`; Shutdown() wakes them all. Liveness uses the injected Clock, and is checked
// only when CheckLiveness() runs (the gRPC shell calls it periodically; tests call it directly
// after advancing a FakeClock).
#ifndef TUNEFARM_TRACKER_TRACKER_CORE_H_
#define TUNEFARM_TRACKER_TRACKER_CORE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "proto/tracker.pb.h"

namespace tunefarm {

// Tunables of the tracker, with their defaults.
struct TrackerOptions {
  // Sent to workers at registration; they heartbeat this often.
  absl::Duration heartbeat_interval = absl::Seconds(1);
  // A worker silent for this long is lost and its leases go back to the queue.
  absl::Duration heartbeat_timeout = absl::Seconds(10);
  // A lease lasts the request's timeout plus this grace before it is re-queued.
  absl::Duration lease_grace = absl::Seconds(10);
  // Queued requests per device key; Submit beyond it is ResourceExhausted (back-pressure).
  int max_queue_per_key = 100000;
  // A request whose leases were lost this many times is answered with DEVICE_LOST.
  int max_attempts = 3;
  // Most requests handed to one worker per Lease call.
  int max_lease_batch = 64;
  // Devices whose noise_cv exceeds this get no work until it falls below 0.8 of it, while a
  // quiet live device of their key can take it: when every live device of a key is noisy,
  // they measure anyway (each result carries its worker's noise_cv), so no queue starves.
  // 0 disables the noise gate.
  double noise_threshold = 0.0;
  // Keys accepted by Submit even before any worker of that key registered.
  std::vector<std::string> known_keys;
  // Lost workers stay visible in Summary this long.
  absl::Duration forget_lost_after = absl::Minutes(10);
  // Ids of finished requests remembered for de-duplication (oldest forgotten first). A result
  // reported for a forgotten id is dropped all the same, as its task is gone.
  int max_finished_ids = 1000000;
  // Registered workers (lost ones included until forgotten) and device keys; a registration
  // beyond either is ResourceExhausted, so no token holder can grow the tracker without bound.
  int max_workers = 100000;
  int max_keys = 10000;
  // A job with nothing queued or leased whose client has not called for this long (it died,
  // or moved on without acknowledging) is forgotten with its unacknowledged results.
  absl::Duration forget_idle_jobs_after = absl::Minutes(10);
};

class TrackerCore {
 public:
  // `clock` must outlive the core; it decides liveness, lease expiry and long-poll deadlines.
  TrackerCore(TrackerOptions options, Clock* clock);
  // Wakes every long poll (Shutdown) before the state goes.
  ~TrackerCore();

  TrackerCore(const TrackerCore&) = delete;
  TrackerCore& operator=(const TrackerCore&) = delete;

  // ---- Worker side ----

  // Registers a worker and issues its session key. An id held by a live worker is taken only
  // with that registration's session key: the same incarnation renews it (keeping its leases
  // and key), a new incarnation replaces it (the old leases are re-queued). An id that is free,
  // or whose worker was lost, is registered afresh with a new key.
  // Errors: InvalidArgument (empty worker_id, incarnation or device key), AlreadyExists (a live
  // worker holds the id and the session key is missing or wrong), ResourceExhausted (as many
  // workers or keys as the tracker allows).
  absl::StatusOr<v1::RegisterResponse> Register(const v1::RegisterRequest& request);

  // Records liveness and the worker's noise level.
  // Errors: NotFound (unknown or lost worker: register again), Aborted (incarnation mismatch:
  // a newer process of this worker registered), PermissionDenied (wrong session key).
  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(const v1::HeartbeatRequest& request);

  // Accepts results and returned requests, then waits up to wait_ms for up to max_tasks new
  // requests of the worker's key. A result counts only for a request this worker incarnation
  // was leased at some point and that is not finished yet (a late result after a re-lease is
  // still a measurement of that request); any other is dropped and counted in Summary. A worker
  // answered NotFound keeps its results and sends them again after registering.
  // Errors: NotFound, Aborted, PermissionDenied (as Heartbeat); Unavailable (shutting down).
  absl::StatusOr<v1::LeaseResponse> Lease(const v1::LeaseRequest& request);

  // The content of an artifact of a request leased to this worker, which it no longer holds.
  // Errors: as Heartbeat; NotFound (no request leased to this worker references the hash).
  absl::StatusOr<v1::Artifact> FetchArtifact(const v1::FetchArtifactRequest& request);

  // ---- Client side ----

  // Queues requests of a job. All-or-nothing, idempotent per request_id.
  // Errors: InvalidArgument (missing ids/hash/kernel, hash does not match content, content
  // missing for an unknown hash, bad timing values), NotFound (no device of that key ever
  // registered), ResourceExhausted (queue of that key would exceed max_queue_per_key),
  // Unavailable (tracker draining).
  absl::StatusOr<v1::SubmitResponse> Submit(const v1::SubmitRequest& request);

  // First forgets the results named in `ack`, then returns the job's unacknowledged results,
  // waiting up to wait_ms for at least one (returns at once when nothing is pending).
  // max_results 0 means all ready. A job with nothing pending and nothing unacknowledged is
  // forgotten after the reply.
  // Errors: NotFound (unknown job: never submitted, forgotten, or lost in a tracker restart).
  absl::StatusOr<v1::FetchResultsResponse> FetchResults(const v1::FetchResultsRequest& request);

  // Drops the queued and leased requests of a job and the results not yet acknowledged, then
  // forgets the job; late results for it are ignored. Errors: NotFound (unknown job).
  absl::StatusOr<v1::CancelResponse> Cancel(const v1::CancelRequest& request);

  // Devices (with their state), queues, jobs and throughput: what `tunefarm status` shows.
  v1::FarmSummary Summary() const;

  // Number of live (registered, not lost) workers of `key`, noisy ones included.
  int LiveDevices(const std::string& key) const;

  // This run's incarnation: unique per process start.
  const std::string& incarnation() const { return incarnation_; }

  // Jobs the tracker currently holds state for (for tests and status).
  int jobs() const;

  // Lease calls of workers of `key` waiting for work now (for tests and status).
  int WaitingLeases(const std::string& key) const;

  // For /metrics: how long each lease's request had waited in its queue (seconds, from its
  // Submit or re-queue), and finished requests by error class (lower-case ErrorClass names,
  // "error_none" for a measurement).
  const Histogram& dispatch_latency() const { return dispatch_latency_; }
  const LabeledCounter& results_by_class() const { return results_by_class_; }

  // Marks silent workers lost, re-queues expired leases and forgets idle finished jobs. Call
  // periodically.
  void CheckLiveness();

  // Stops accepting Submit; Drained() turns true when nothing is queued, leased or unfetched.
  void StartDrain();
  bool Drained() const;

  // Wakes every long poll; later Lease calls return Unavailable.
  void Shutdown();

 private:
  // One submitted request, from Submit until its result (or its job's cancellation).
  struct Task {
    v1::MeasureRequest request;  // artifact contents stripped (kept in artifacts_)
    std::string job_id;
    std::string key;
    // Leases so far; past max_attempts lost ones the request is answered DEVICE_LOST.
    int attempts = 0;
    std::string worker_id;  // empty while queued
    // When the current lease expires (request timeout + lease_grace).
    absl::Time deadline;
    // When it last entered a queue (submitted or re-queued): its dispatch latency ends at the
    // lease.
    absl::Time queued_at;
    // Every registration (HolderId) this request was ever leased to.
    absl::flat_hash_set<std::string> holders;
  };
  // A client's job: what it waits for and what it has not taken over yet.
  struct Job {
    int priority = 0;
    // Finished results never sent, then those sent but not yet acknowledged.
    std::deque<v1::MeasureResult> outbox;
    absl::flat_hash_map<std::string, v1::MeasureResult> unacked;
    int pending = 0;       // queued or leased
    int waiters = 0;       // FetchResults calls blocked on `ready`
    absl::Time last_call;  // the client's last Submit or FetchResults
    absl::CondVar ready;
  };
  // One job's requests waiting for a device of one key.
  // Only jobs with queued requests have one: it is dropped when it empties, so dispatch walks
  // the jobs that have work, never finished ones.
  struct JobQueue {
    std::deque<std::string> queued;  // request ids; re-queued ones go to the front
    // Requests handed out so far: fair share picks the least served job of a priority.
    int64_t served = 0;
  };
  // Everything waiting for devices of one key.
  struct KeyQueue {
    absl::flat_hash_map<std::string, JobQueue> jobs;
    // Requests queued and leased across the key's jobs (queued is bounded by
    // max_queue_per_key).
    int queued = 0;
    int leased = 0;
    // Signalled when work arrives or a worker becomes eligible; Lease long polls wait on it.
    // New work wakes as many waiters as it has requests (WakeLeasesLocked), not all of them.
    absl::CondVar work;
    // Lease calls waiting on `work` now. A woken call that cannot take the work (its worker
    // left or was replaced) passes the wake-up on.
    int waiting = 0;
    // Lease calls of parked (noisy) workers wait here: signalled when a worker's noise clears,
    // and when the key's quiet workers become noisy, leave or are lost (the noisy ones may then
    // have to take the work).
    absl::CondVar noisy;
  };
  // One registration of a worker process.
  struct Worker {
    std::string incarnation;
    std::string session_key;
    v1::DeviceDescription device;
    // Liveness: silent past heartbeat_timeout means lost (its leases re-queued); lost workers
    // are forgotten after forget_lost_after.
    absl::Time last_heartbeat;
    // When this id first registered (the start of its rate's window).
    absl::Time registered;
    // The end of the Lease long poll it is waiting in (InfinitePast when none): a worker
    // waiting for work is connected and counts as alive until then.
    absl::Time polling_until = absl::InfinitePast();
    bool lost = false;
    absl::Time lost_since;
    // The noise gate: the calibration kernel's spread, and whether it keeps the worker idle.
    double noise_cv = 0;
    bool noisy = false;
    // Request ids it holds now, and artifact hashes whose bytes it has been sent (they are sent
    // once per registration).
    absl::flat_hash_set<std::string> leased;
    absl::flat_hash_set<std::string> artifacts_sent;
    // Results it reported that counted, and when those of the last minute came (its rate in
    // Summary).
    int64_t completed = 0;
    std::deque<absl::Time> recent;
  };
  // An artifact's bytes, held while any unfinished request references its hash.
  struct StoredArtifact {
    std::string content;
    int refs = 0;
  };

  // The checks Submit applies to each request (ids, artifacts and their hashes, timing values,
  // shapes).
  absl::Status ValidateRequestLocked(const v1::MeasureRequest& r) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The live worker `id` if `incarnation` and `session_key` are its own.
  absl::StatusOr<Worker*> FindWorkerLocked(const std::string& id, const std::string& incarnation,
                                           const std::string& session_key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Completes the request of `result` if the registration `holder` was ever leased it.
  void AcceptResultLocked(const std::string& worker_id, const std::string& holder,
                          v1::MeasureResult result) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Puts a leased task back at the front of its job queue; `count_attempt` charges it to the
  // failure budget (lost worker, expired lease) and answers DEVICE_LOST past max_attempts.
  void RequeueLocked(const std::string& request_id, bool count_attempt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Re-queues every lease of `worker` (it was lost, replaced or left), charging each attempt.
  void RequeueAllOfWorkerLocked(Worker& worker) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Finishes a task with `result` and forgets it.
  void CompleteLocked(const std::string& request_id, v1::MeasureResult result)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Remembers a finished id, forgetting the oldest beyond max_finished_ids.
  void RememberFinishedLocked(const std::string& request_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Pops the next request for `worker_id` by priority and fair share, skipping requests that ask to
  // avoid this worker while another live, non-noisy worker of `key` could take them. Empty
  // when none is eligible.
  std::string PopNextLocked(KeyQueue& queue, const std::string& key, const std::string& worker_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reference counting of stored artifacts: a submitted request takes a reference on its
  // artifact and reference artifact (keeping the bytes of the first submission that had
  // them); a finished or cancelled request releases them; the bytes go with the last one.
  void RefArtifactLocked(const v1::Artifact& a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UnrefArtifactLocked(const std::string& hash) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseTaskArtifactsLocked(const Task& task) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Puts the artifact's bytes into a lease the first time this registration sees its hash.
  void FillArtifactLocked(Worker& worker, v1::Artifact* a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Waits on the queue for work up to `wait_until`, the worker counting as alive meanwhile
  // (a parked worker waits apart, on `noisy`); true when the deadline passed.
  bool WaitForWorkLocked(KeyQueue& queue, Worker& worker, bool parked, absl::Time wait_until)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether the noise gate keeps `worker` idle: it is noisy and another live worker of its key
  // is not. Scans the workers only for a noisy one.
  bool ParkedLocked(const std::string& worker_id, const Worker& worker) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The end of a Lease call: the worker was heard from now, and waits no more.
  void LeaseEndLocked(const v1::LeaseRequest& request) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Wakes up to `requests` Lease calls waiting on the queue.
  void WakeLeasesLocked(KeyQueue& queue, int requests) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The queue of `job_id` within a key's queue, made (level with the least-served job) when
  // the job has no queued work there. Only jobs with queued work keep an entry.
  JobQueue& JobQueueLocked(KeyQueue& queue, const std::string& job_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The queue of `key`, made on first use.
  KeyQueue& QueueOfLocked(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const TrackerOptions options_;
  // Every time decision of the core (see the constructor).
  Clock* const clock_;
  // When the core was made, on clock_ (uptime in Summary).
  const absl::Time started_;
  const std::string incarnation_;

  // Guards everything below; long polls wait on the queues' and jobs' condition variables
  // with it.
  mutable absl::Mutex mu_;
  // Set by Shutdown: long polls return, Lease answers Unavailable.
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  // Set by StartDrain: Submit is refused.
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  // Device keys accepted before any worker registers them (options_.known_keys, then every
  // key registered since).
  absl::flat_hash_set<std::string> known_keys_ ABSL_GUARDED_BY(mu_);
  // Registrations by worker id. Node maps: long polls hold references across waits.
  absl::node_hash_map<std::string, Worker> workers_ ABSL_GUARDED_BY(mu_);
  absl::node_hash_map<std::string, KeyQueue> queues_ ABSL_GUARDED_BY(mu_);
  absl::node_hash_map<std::string, Job> jobs_ ABSL_GUARDED_BY(mu_);
  // Every request between Submit and its result, by request id.
  absl::flat_hash_map<std::string, Task> tasks_ ABSL_GUARDED_BY(mu_);
  // Ids of finished requests, for de-duplication of late and repeated results.
  absl::flat_hash_set<std::string> completed_ ABSL_GUARDED_BY(mu_);
  // completed_ in insertion order, so the oldest are forgotten first (max_finished_ids).
  std::deque<std::string> completed_order_ ABSL_GUARDED_BY(mu_);
  // Artifact bytes by content hash, shared by the requests that reference them.
  absl::flat_hash_map<std::string, StoredArtifact> artifacts_ ABSL_GUARDED_BY(mu_);
  // When CheckLiveness last looked for idle jobs to forget.
  absl::Time last_job_sweep_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // Completion times of the last minute, for the throughput in Summary.
  std::deque<absl::Time> recent_completions_ ABSL_GUARDED_BY(mu_);
  // Results accepted since start.
  int64_t results_total_ ABSL_GUARDED_BY(mu_) = 0;
  // Results dropped because their worker was never leased the request.
  int64_t results_refused_ ABSL_GUARDED_BY(mu_) = 0;
  // Metrics (thread-safe themselves; updated under mu_, read without it).
  Histogram dispatch_latency_{Histogram::LatencyBoundsSeconds()};
  LabeledCounter results_by_class_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_TRACKER_TRACKER_CORE_H_
