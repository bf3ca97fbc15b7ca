// An embedded farm: a tracker and N workers inside the current process, used by
// `tunefarm tune` when no --tracker is given, and by tests. Workers run the same code as
// remote ones (gRPC to the tracker over loopback, sandbox child per worker); they measure on
// the CPU, or all on one GPU with `device = "cuda:N"`.
//
//   absl::StatusOr<std::unique_ptr<LocalFarm>> farm = LocalFarm::Start({.num_workers = 2});
//   auto client = TrackerClient::Connect({.address = (*farm)->address(),
//                                         .token = (*farm)->token()});
#ifndef TUNEFARM_FARM_LOCAL_FARM_H_
#define TUNEFARM_FARM_LOCAL_FARM_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tracker/tracker_core.h"

namespace tunefarm {

class TrackerServer;
class Worker;

struct LocalFarmOptions {
  int num_workers = 1;
  // Device key of every worker.
  std::string key = "cpu-local";
  std::string target = "llvm";
  // Shared token of the embedded tracker; empty generates a random one.
  std::string token;
  // tunefarm_sandbox path; empty searches the usual places (FindSandboxBinary).
  std::string sandbox_binary;
  int64_t sandbox_memory_limit_mb = 4096;
  // What the workers measure on: "cpu" (num_workers workers), or GPUs: "cuda:N",
  // "cuda:N,M,..." or "cuda:all" (rpc_server/device_spec.h), one worker per GPU by default
  // (num_workers > 1 with one GPU puts several workers on it: they share it and disturb each
  // other's timings).
  std::string device = "cpu";
  // Calibration period of the workers (zero disables).
  absl::Duration calibration_period = absl::ZeroDuration();
  // Threads each measured kernel may use (its sandbox's OMP_NUM_THREADS).
  int threads_per_worker = 1;
  TrackerOptions tracker;
};

class LocalFarm {
 public:
  // Starts the tracker on 127.0.0.1 (OS-chosen port) and the workers, and waits until every
  // worker has registered. Errors: InvalidArgument (num_workers < 1, bad device), NotFound
  // (sandbox binary), Unavailable (e.g. "no CUDA device: ..." for a cuda device),
  // DeadlineExceeded.
  static absl::StatusOr<std::unique_ptr<LocalFarm>> Start(LocalFarmOptions options);
  // Stops the workers (gracefully) and the tracker.
  ~LocalFarm();

  std::string address() const;
  const std::string& token() const { return options_.token; }
  TrackerServer& tracker() { return *tracker_; }

 private:
  LocalFarm() = default;
  LocalFarmOptions options_;
  std::unique_ptr<TrackerServer> tracker_;
  std::vector<std::unique_ptr<Worker>> workers_;
  // Declared last: joined first, while the workers they run are alive.
  std::vector<std::thread> threads_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_FARM_LOCAL_FARM_H_
