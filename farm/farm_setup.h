// The one way a program gets a farm to measure on: the embedded local farm (a tracker and
// sandboxed workers in this process tree), or a remote tracker; and a client for it. The CLI,
// the benchmarks and the tests all start their farm here. How many threads a measured kernel
// may use is an option of the farm, never a variable of this process's environment.
#ifndef TUNEFARM_FARM_FARM_SETUP_H_
#define TUNEFARM_FARM_FARM_SETUP_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/tls_options.h"
#include "farm/local_farm.h"
#include "farm/tracker_client.h"

namespace tunefarm {

struct FarmSetupOptions {
  // "host:port" of a remote tracker; empty starts the embedded local farm.
  std::string tracker_address;
  // Remote: the client token and TLS files. Local: the embedded tracker's token (empty: a
  // random one); TLS is not used.
  std::string token;
  TlsOptions tls;
  // The devices' key. Remote: required. Local: the key of the local workers (default
  // "cpu-local", or "gpu-local" for a GPU device).
  std::string key;
  // Local only: target, device ("cpu", "cuda:N", ...; see LocalFarmOptions), workers (0: one
  // per GPU, or one per `threads_per_worker` cores), threads each measured kernel may use,
  // calibration period of the workers.
  std::string target = "llvm";
  std::string device = "cpu";
  int num_workers = 0;
  int threads_per_worker = 1;
  absl::Duration calibration_period = absl::ZeroDuration();
  int64_t sandbox_memory_limit_mb = 4096;
};

// A farm and a client connected to it. Members are destroyed in reverse order: the client
// before the farm.
struct Farm {
  // Null for a remote tracker.
  std::unique_ptr<LocalFarm> local;
  std::unique_ptr<TrackerClient> client;
  // The key jobs submit to.
  std::string device_key;
};

// Starts the embedded local farm or connects to the remote tracker.
// Errors: InvalidArgument (no key with a remote tracker, a bad device), as LocalFarm::Start
// (e.g. Unavailable "no CUDA device: ...") and TrackerClient::Connect.
absl::StatusOr<std::unique_ptr<Farm>> StartFarm(const FarmSetupOptions& options);

}  // namespace tunefarm

#endif  // TUNEFARM_FARM_FARM_SETUP_H_
