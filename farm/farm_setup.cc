#include "farm/farm_setup.h"

#include <algorithm>
#include <thread>

namespace tunefarm {

absl::StatusOr<std::unique_ptr<Farm>> StartFarm(const FarmSetupOptions& options) {
  auto farm = std::make_unique<Farm>();
  TrackerClientOptions client;
  if (options.tracker_address.empty()) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = std::max(1, options.threads_per_worker);
    const bool gpu = options.device != "cpu";
    LocalFarmOptions local;
    local.target = options.target;
    local.device = options.device;
    // Workers on one GPU would disturb each other's timings: one by default.
    local.num_workers = options.num_workers > 0 ? options.num_workers
                        : gpu                   ? 1
                                                : std::max(1, cores / threads);
    local.key = options.key.empty() ? (gpu ? "gpu-local" : "cpu-local") : options.key;
    local.threads_per_worker = threads;
    local.token = options.token;  // empty: the local farm draws one
    local.calibration_period = options.calibration_period;
    local.sandbox_memory_limit_mb = options.sandbox_memory_limit_mb;
    absl::StatusOr<std::unique_ptr<LocalFarm>> started = LocalFarm::Start(local);
    if (!started.ok()) return started.status();
    farm->local = std::move(*started);
    farm->device_key = local.key;
    client.address = farm->local->address();
    client.token = farm->local->token();
  } else {
    if (options.key.empty()) {
      return absl::InvalidArgumentError("a remote tracker needs the devices' key (--key)");
    }
    farm->device_key = options.key;
    client.address = options.tracker_address;
    client.token = options.token;
    client.tls = options.tls;
  }
  absl::StatusOr<std::unique_ptr<TrackerClient>> connected = TrackerClient::Connect(client);
  if (!connected.ok()) return connected.status();
  farm->client = std::move(*connected);
  return farm;
}

}  // namespace tunefarm
