#include "farm/local_farm.h"

#include "absl/strings/str_cat.h"
#include "common/random_token.h"
#include "rpc_server/backend_factory.h"
#include "rpc_server/cuda_driver.h"
#include "rpc_server/device_spec.h"
#include "rpc_server/sandbox_process.h"
#include "rpc_server/worker.h"
#include "tracker/tracker_server.h"

namespace tunefarm {
namespace {

constexpr absl::Duration kRegistrationTimeout = absl::Seconds(20);

}  // namespace

absl::StatusOr<std::unique_ptr<LocalFarm>> LocalFarm::Start(LocalFarmOptions options) {
  if (options.num_workers < 1) return absl::InvalidArgumentError("LocalFarm: num_workers < 1");
  absl::StatusOr<std::vector<DeviceSpec>> devices =
      ParseDeviceList(options.device, []() -> absl::StatusOr<int> {
        absl::StatusOr<CudaDriver*> driver = CudaDriver::Load();
        if (!driver.ok()) return driver.status();
        return (*driver)->DeviceCount();
      });
  if (!devices.ok()) return devices.status();
  if (devices->empty()) return absl::UnavailableError("no CUDA device: the driver sees no GPU");
  // Several GPUs: one worker on each (num_workers is the CPU and single-GPU worker count).
  if (devices->size() > 1) options.num_workers = static_cast<int>(devices->size());
  if (options.sandbox_binary.empty()) {
    absl::StatusOr<std::string> binary = FindSandboxBinary();
    if (!binary.ok()) return binary.status();
    options.sandbox_binary = *binary;
  }
  if (options.token.empty()) options.token = RandomToken();
  // Backends first: a missing GPU is reported before a tracker is started for nothing.
  std::vector<std::unique_ptr<DeviceBackend>> backends;
  for (int i = 0; i < options.num_workers; ++i) {
    absl::StatusOr<std::unique_ptr<DeviceBackend>> backend =
        CreateDeviceBackend((*devices)[static_cast<size_t>(i) % devices->size()],
                            SandboxOptions{options.sandbox_binary, options.sandbox_memory_limit_mb,
                                           /*device=*/"", std::max(1, options.threads_per_worker)});
    if (!backend.ok()) return backend.status();
    backends.push_back(*std::move(backend));
  }
  std::unique_ptr<LocalFarm> farm(new LocalFarm());
  farm->options_ = std::move(options);
  TrackerServerOptions tracker_options;
  tracker_options.token = farm->options_.token;
  tracker_options.core = farm->options_.tracker;
  tracker_options.core.known_keys.push_back(farm->options_.key);
  absl::StatusOr<std::unique_ptr<TrackerServer>> tracker =
      TrackerServer::Start(std::move(tracker_options));
  if (!tracker.ok()) return tracker.status();
  farm->tracker_ = std::move(*tracker);
  for (int i = 0; i < farm->options_.num_workers; ++i) {
    WorkerOptions w;
    w.tracker_address = farm->tracker_->address();
    w.token = farm->options_.token;
    w.key = farm->options_.key;
    w.target = farm->options_.target;
    w.calibration_period = farm->options_.calibration_period;
    w.labels.push_back({"farm", "local"});
    absl::StatusOr<std::unique_ptr<Worker>> worker = Worker::Create(w, std::move(backends[i]));
    if (!worker.ok()) return worker.status();
    farm->workers_.push_back(std::move(*worker));
  }
  for (auto& worker : farm->workers_) {
    Worker* w = worker.get();
    farm->threads_.emplace_back([w] { w->Run().IgnoreError(); });
  }
  const absl::Time deadline = absl::Now() + kRegistrationTimeout;
  while (farm->tracker_->core().LiveDevices(farm->options_.key) < farm->options_.num_workers) {
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError("LocalFarm: workers did not register in time");
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return farm;
}

LocalFarm::~LocalFarm() {
  for (auto& worker : workers_) worker->Stop();
  for (std::thread& t : threads_) t.join();
  workers_.clear();
  if (tracker_ != nullptr) tracker_->Shutdown();
}

std::string LocalFarm::address() const { return tracker_->address(); }

}  // namespace tunefarm
