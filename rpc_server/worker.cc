#include "rpc_server/worker.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "absl/base/internal/raw_logging.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/transport.h"
#include "proto/tracker.grpc.pb.h"
#include "rpc_server/artifact_cache.h"

namespace tunefarm {

std::string DefaultWorkerId() {
  static std::atomic<int> counter{0};
  char host[256] = "host";
  gethostname(host, sizeof(host) - 1);
  return absl::StrCat(host, "-", getpid(), "-", counter++);
}

struct Worker::Impl {
  WorkerOptions options;
  std::unique_ptr<DeviceBackend> backend;
  std::unique_ptr<ArtifactCache> cache;
  std::unique_ptr<v1::Tracker::Stub> stub;
  std::string incarnation;
  v1::DeviceDescription device;
  absl::Notification stop;
  std::atomic<bool> stop_requested{false};
  // Ends the heartbeat thread once Run() is done with the tracker.
  absl::Notification heartbeat_stop;
  std::atomic<int64_t> completed{0};
  std::atomic<int64_t> registrations{0};

  absl::Mutex mu;
  bool registered ABSL_GUARDED_BY(mu) = false;
  // Secret of the current registration; sent with every call and to renew it.
  std::string session_key ABSL_GUARDED_BY(mu);
  absl::Duration heartbeat_interval ABSL_GUARDED_BY(mu) = absl::Seconds(1);
  double noise_cv ABSL_GUARDED_BY(mu) = 0;
  // The noise level the tracker last heard (a change is sent at once).
  double noise_sent ABSL_GUARDED_BY(mu) = 0;
  // The Lease call in flight (Stop cancels its long poll), and when the last one ended. A
  // worker waiting in a Lease call, or back from one within the heartbeat interval, has been
  // heard from: it skips that heartbeat, so an idle farm of N workers costs the tracker N
  // long polls per lease_wait and no heartbeats.
  grpc::ClientContext* lease_context ABSL_GUARDED_BY(mu) = nullptr;
  // Whether this registration's tracker counts a waiting poll as alive (older ones do not:
  // then every heartbeat is sent).
  bool polls_are_heartbeats ABSL_GUARDED_BY(mu) = false;
  absl::Time last_lease_end ABSL_GUARDED_BY(mu) = absl::InfinitePast();

  void Prepare(grpc::ClientContext* context, absl::Duration timeout) {
    AttachToken(context, options.token);
    context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  }

  absl::Status Register() {
    v1::RegisterRequest request;
    request.set_worker_id(options.worker_id);
    request.set_incarnation(incarnation);
    request.set_session_key(SessionKey());
    *request.mutable_device() = device;
    grpc::ClientContext context;
    Prepare(&context, absl::Seconds(5));
    v1::RegisterResponse response;
    absl::Status s = FromGrpcStatus(stub->Register(&context, request, &response));
    if (!s.ok()) return s;
    absl::MutexLock lock(&mu);
    registered = true;
    session_key = response.session_key();
    heartbeat_interval = absl::Milliseconds(std::max(50, response.heartbeat_interval_ms()));
    polls_are_heartbeats = response.polls_count_as_heartbeats();
    ++registrations;
    return absl::OkStatus();
  }

  std::string SessionKey() {
    absl::MutexLock lock(&mu);
    return session_key;
  }

  void MarkUnregistered() {
    absl::MutexLock lock(&mu);
    registered = false;
  }

  void HeartbeatLoop() {
    while (true) {
      absl::Duration interval;
      bool is_registered;
      double noise;
      {
        absl::MutexLock lock(&mu);
        interval = heartbeat_interval;
      }
      if (heartbeat_stop.WaitForNotificationWithTimeout(interval)) return;
      {
        absl::MutexLock lock(&mu);
        is_registered = registered;
        noise = noise_cv;
        const bool heard_from = polls_are_heartbeats && (lease_context != nullptr ||
                                                         absl::Now() - last_lease_end < interval);
        if (heard_from && noise == noise_sent) continue;
        noise_sent = noise;
      }
      if (!is_registered) continue;
      v1::HeartbeatRequest request;
      request.set_worker_id(options.worker_id);
      request.set_incarnation(incarnation);
      request.set_session_key(SessionKey());
      request.set_noise_cv(noise);
      grpc::ClientContext context;
      Prepare(&context, absl::Seconds(5));
      v1::HeartbeatResponse response;
      absl::Status s = FromGrpcStatus(stub->Heartbeat(&context, request, &response));
      if (absl::IsNotFound(s) || absl::IsAborted(s) || absl::IsPermissionDenied(s)) {
        MarkUnregistered();
      }
    }
  }

  // Local path of `artifact`, from the lease, the cache or the tracker.
  absl::StatusOr<std::string> Materialize(const v1::Artifact& artifact) {
    if (!artifact.content().empty()) return cache->Put(artifact.hash(), artifact.content());
    absl::StatusOr<std::string> path = cache->Find(artifact.hash());
    if (path.ok()) return path;
    v1::FetchArtifactRequest request;
    request.set_worker_id(options.worker_id);
    request.set_incarnation(incarnation);
    request.set_session_key(SessionKey());
    request.set_hash(artifact.hash());
    grpc::ClientContext context;
    Prepare(&context, absl::Seconds(30));
    v1::Artifact fetched;
    absl::Status s = FromGrpcStatus(stub->FetchArtifact(&context, request, &fetched));
    if (!s.ok()) return s;
    return cache->Put(fetched.hash(), fetched.content());
  }

  v1::MeasureResult MeasureOne(const v1::MeasureRequest& request) {
    const absl::Time start = absl::Now();
    v1::MeasureResult result;
    // A build request (a builder worker's) has no artifact to load: the backend gets it whole.
    absl::StatusOr<std::string> path =
        request.has_build() ? std::string() : Materialize(request.artifact());
    std::string reference_path;
    if (path.ok() && request.has_reference_artifact()) {
      absl::StatusOr<std::string> ref = Materialize(request.reference_artifact());
      if (ref.ok()) {
        reference_path = *ref;
      } else {
        path = ref.status();
      }
    }
    if (!path.ok()) {
      result.set_error(v1::LOAD_ERROR);
      result.set_message(absl::StrCat("cannot obtain artifact: ", path.status().message()));
    } else {
      v1::MeasureRequest stripped = request;
      stripped.mutable_artifact()->clear_content();
      stripped.mutable_reference_artifact()->clear_content();
      if (!request.has_reference_artifact()) stripped.clear_reference_artifact();
      if (request.has_reference_sums())
        *stripped.mutable_reference_sums() = request.reference_sums();
      result = backend->Measure(stripped, *path, reference_path);
    }
    result.set_request_id(request.request_id());
    result.set_worker_id(options.worker_id);
    result.set_device_key(options.key);
    // Every result says it: the tuner's side lookup of this worker's device can miss.
    result.set_emulated(device.emulated());
    {
      absl::MutexLock lock(&mu);
      result.set_worker_noise_cv(noise_cv);
    }
    result.set_worker_seconds(absl::ToDoubleSeconds(absl::Now() - start));
    return result;
  }

  void Calibrate() {
    absl::StatusOr<double> noise = backend->MeasureNoise();
    if (!noise.ok()) return;
    absl::MutexLock lock(&mu);
    noise_cv = *noise;
  }

  absl::Status Run() {
    std::thread heartbeat([this] { HeartbeatLoop(); });
    std::vector<v1::MeasureResult> unacked;
    absl::Time last_calibration = absl::InfinitePast();
    bool said_id_taken = false;
    absl::Status exit_status = absl::OkStatus();
    while (true) {
      const bool stopping = stop.HasBeenNotified();
      bool is_registered;
      {
        absl::MutexLock lock(&mu);
        is_registered = registered;
      }
      if (!is_registered) {
        if (stopping) break;
        absl::Status s = Register();
        if (absl::IsUnauthenticated(s) || absl::IsInvalidArgument(s)) {
          ABSL_RAW_LOG(ERROR, "worker %s: tracker refused registration: %s",
                       options.worker_id.c_str(), std::string(s.message()).c_str());
          exit_status = s;
          break;
        }
        if (absl::IsAlreadyExists(s) && !said_id_taken) {
          // Our own predecessor (a crashed process) until the tracker declares it lost, or
          // another worker with the same --worker_id: keep trying, say it once.
          ABSL_RAW_LOG(WARNING, "worker %s: %s; retrying", options.worker_id.c_str(),
                       std::string(s.message()).c_str());
          said_id_taken = true;
        }
        if (!s.ok()) {
          stop.WaitForNotificationWithTimeout(options.reconnect_backoff);
          continue;
        }
      }
      if (options.calibration_period > absl::ZeroDuration() && !stopping &&
          absl::Now() - last_calibration > options.calibration_period) {
        Calibrate();
        last_calibration = absl::Now();
      }
      v1::LeaseRequest request;
      request.set_worker_id(options.worker_id);
      request.set_incarnation(incarnation);
      request.set_session_key(SessionKey());
      for (const v1::MeasureResult& r : unacked) *request.add_results() = r;
      request.set_max_tasks(stopping ? 0 : std::max(1, options.parallel));
      request.set_wait_ms(static_cast<int32_t>(absl::ToInt64Milliseconds(options.lease_wait)));
      request.set_leaving(stopping);
      grpc::ClientContext context;
      Prepare(&context, options.lease_wait + absl::Seconds(10));
      {
        absl::MutexLock lock(&mu);
        // The goodbye call is not cancelled. A Stop() that came before the context was
        // visible: do not wait out the long poll.
        if (!stopping) lease_context = &context;
        if (!stopping && stop.HasBeenNotified()) context.TryCancel();
      }
      v1::LeaseResponse response;
      absl::Status s = FromGrpcStatus(stub->Lease(&context, request, &response));
      {
        absl::MutexLock lock(&mu);
        lease_context = nullptr;
        last_lease_end = absl::Now();
      }
      if (stopping) break;  // reported what we had and said goodbye (best effort)
      if (!s.ok()) {
        if (absl::IsNotFound(s) || absl::IsAborted(s) || absl::IsPermissionDenied(s)) {
          MarkUnregistered();  // tracker restarted or declared us lost: register again
        } else if (absl::IsUnauthenticated(s)) {
          exit_status = s;
          break;
        } else {
          stop.WaitForNotificationWithTimeout(options.reconnect_backoff);
        }
        if (absl::IsUnavailable(s)) MarkUnregistered();
        continue;
      }
      unacked.clear();
      if (response.tasks_size() <= 1) {
        for (int i = 0; i < response.tasks_size(); ++i)
          unacked.push_back(MeasureOne(response.tasks(i)));
      } else {
        // Several leased at once (options.parallel): one thread each.
        unacked.resize(response.tasks_size());
        std::vector<std::thread> pool;
        for (int i = 0; i < response.tasks_size(); ++i) {
          pool.emplace_back([&, i] { unacked[i] = MeasureOne(response.tasks(i)); });
        }
        for (std::thread& t : pool) t.join();
      }
      completed += response.tasks_size();
    }
    heartbeat_stop.Notify();
    heartbeat.join();
    return exit_status;
  }
};

Worker::Worker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Worker::~Worker() { Stop(); }

absl::StatusOr<std::unique_ptr<Worker>> Worker::Create(WorkerOptions options,
                                                       std::unique_ptr<DeviceBackend> backend) {
  if (options.tracker_address.empty()) {
    return absl::InvalidArgumentError("worker: --tracker HOST:PORT is required");
  }
  if (options.key.empty()) return absl::InvalidArgumentError("worker: --key is required");
  if (backend == nullptr) return absl::InvalidArgumentError("worker: no device backend");
  auto impl = std::make_unique<Impl>();
  if (options.worker_id.empty()) options.worker_id = DefaultWorkerId();
  absl::StatusOr<std::unique_ptr<ArtifactCache>> cache =
      ArtifactCache::Create(options.cache_dir, options.max_cached_artifacts);
  if (!cache.ok()) return cache.status();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      MakeChannel(options.tracker_address, options.tls, options.max_message_bytes);
  if (!channel.ok()) return channel.status();
  impl->cache = std::move(*cache);
  impl->stub = v1::Tracker::NewStub(*channel);
  absl::BitGen gen;
  impl->incarnation =
      absl::StrCat(absl::ToUnixMicros(absl::Now()), "-", absl::Uniform<uint64_t>(gen));
  backend->Describe(&impl->device);
  impl->device.set_key(options.key);
  impl->device.set_target(options.target);
  for (const auto& [k, v] : options.labels) (*impl->device.mutable_labels())[k] = v;
  impl->backend = std::move(backend);
  impl->options = std::move(options);
  return std::unique_ptr<Worker>(new Worker(std::move(impl)));
}

absl::Status Worker::Run() { return impl_->Run(); }
void Worker::Stop() {
  if (impl_->stop_requested.exchange(true)) return;
  impl_->stop.Notify();
  // A long poll in progress ends now; Run() then returns its leases and says goodbye.
  absl::MutexLock lock(&impl_->mu);
  if (impl_->lease_context != nullptr) impl_->lease_context->TryCancel();
}
const std::string& Worker::worker_id() const { return impl_->options.worker_id; }
int64_t Worker::completed() const { return impl_->completed.load(); }
int64_t Worker::registrations() const { return impl_->registrations.load(); }

}  // namespace tunefarm
