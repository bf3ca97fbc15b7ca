// Dispatch throughput and latency of the tracker with 1, 8 and 64 simulated workers running a
// no-op kernel in-process (the real Worker and TrackerServer over gRPC on loopback; only the
// device backend is simulated), and the per-measurement overhead of the full path (tracker +
// worker + sandbox child) versus timing the same kernel in-process.
//
//   bazel run -c opt //bench:farm_dispatch -- [--quick]
//
// Ends with: RESULT workers=64 rps=... p50_ms=... p99_ms=...
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "bench/bench_util.h"
#include "bench/sim_requests.h"
#include "common/content_hash.h"
#include "compiler/abi/kernel_abi.h"
#include "farm/tracker_client.h"
#include "rpc_server/cpu_backend.h"
#include "rpc_server/device_backend.h"
#include "rpc_server/sandbox_process.h"
#include "rpc_server/timing.h"
#include "rpc_server/worker.h"
#include "tracker/tracker_server.h"

namespace tunefarm {
namespace {

using bench::Percentile;
using bench::SimRequests;
using bench::SingleRequestLatencies;

constexpr char kKey[] = "cpu-bench";
constexpr char kToken[] = "bench-token";

std::string Runfile(const std::string& path) {
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(var)) return absl::StrCat(dir, "/tunefarm/", path);
  }
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  exe[n > 0 ? n : 0] = '\0';
  return absl::StrCat(exe, ".runfiles/tunefarm/", path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A device backend that runs the no-op kernel in-process: measures the farm, not a device.
class NoopBackend final : public DeviceBackend {
 public:
  explicit NoopBackend(TfKernelFn fn) : fn_(fn) {}
  void Describe(v1::DeviceDescription* device) const override { device->set_cpu_model("sim"); }
  v1::MeasureResult Measure(const v1::MeasureRequest& request, const std::string&,
                            const std::string&) override {
    TimingOutcome t = TimeKernel([&] { return fn_(nullptr, 0); }, [] {}, request.timing());
    v1::MeasureResult r;
    for (double c : t.costs) r.add_costs_s(c);
    return r;
  }
  absl::StatusOr<double> MeasureNoise() override { return 0.0; }

 private:
  TfKernelFn fn_;
};

struct Row {
  int workers = 0;
  double rps = 0, p50_ms = 0, p99_ms = 0;
};

Row RunWorkers(int num_workers, int num_requests, int latency_samples, TfKernelFn noop,
               const v1::Artifact& artifact) {
  TrackerServerOptions options;
  options.token = kToken;
  options.core.known_keys = {kKey};
  auto tracker = TrackerServer::Start(options);
  if (!tracker.ok()) {
    absl::FPrintF(stderr, "%s\n", tracker.status().ToString());
    std::exit(1);
  }
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::thread> threads;
  for (int i = 0; i < num_workers; ++i) {
    WorkerOptions w;
    w.tracker_address = (*tracker)->address();
    w.token = kToken;
    w.key = kKey;
    w.calibration_period = absl::ZeroDuration();
    auto worker = Worker::Create(w, std::make_unique<NoopBackend>(noop));
    if (!worker.ok()) std::exit(1);
    workers.push_back(std::move(*worker));
  }
  for (auto& w : workers) {
    Worker* p = w.get();
    threads.emplace_back([p] { p->Run().IgnoreError(); });
  }
  while ((*tracker)->core().LiveDevices(kKey) < num_workers) absl::SleepFor(absl::Milliseconds(5));
  auto client = TrackerClient::Connect({.address = (*tracker)->address(), .token = kToken});
  // Warm-up: every worker receives the artifact once.
  (*client)
      ->MeasureBatch("warm", kKey, 0, SimRequests("warm", 2 * num_workers, artifact),
                     absl::Seconds(60))
      .IgnoreError();
  Row row;
  row.workers = num_workers;
  absl::Time start = absl::Now();
  auto results = (*client)->MeasureBatch(
      "tput", kKey, 0, SimRequests("tput", num_requests, artifact), absl::Seconds(300));
  double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  if (!results.ok() || static_cast<int>(results->size()) != num_requests) {
    absl::FPrintF(stderr, "throughput batch failed: %s\n", results.status().ToString());
    std::exit(1);
  }
  row.rps = num_requests / seconds;
  std::vector<double> ms = SingleRequestLatencies(**client, "lat", kKey, latency_samples, artifact);
  row.p50_ms = Percentile(ms, 0.5);
  row.p99_ms = Percentile(ms, 0.99);
  for (auto& w : workers) w->Stop();
  for (std::thread& t : threads) t.join();
  (*tracker)->Shutdown();
  return row;
}

// Per-measurement cost of the real path (tracker + worker + sandbox) vs in-process timing.
void SandboxOverhead(int samples, TfKernelFn noop, const std::string& noop_bytes) {
  // In-process: the same harness call the sandbox makes, without any process boundary.
  v1::TimingOptions timing;
  timing.set_number(1);
  timing.set_repeat(3);
  std::vector<double> local_ms;
  for (int i = 0; i < samples; ++i) {
    absl::Time start = absl::Now();
    TimeKernel([&] { return noop(nullptr, 0); }, [] {}, timing);
    local_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
  }
  absl::StatusOr<std::string> sandbox = FindSandboxBinary();
  if (!sandbox.ok()) {
    absl::PrintF("sandbox overhead: skipped (%s)\n", sandbox.status().message());
    return;
  }
  TrackerServerOptions options;
  options.token = kToken;
  options.core.known_keys = {kKey};
  auto tracker = TrackerServer::Start(options);
  WorkerOptions w;
  w.tracker_address = (*tracker)->address();
  w.token = kToken;
  w.key = kKey;
  w.calibration_period = absl::ZeroDuration();
  auto worker = Worker::Create(w, std::make_unique<CpuBackend>(SandboxOptions{*sandbox, 4096}));
  std::thread run([&] { (*worker)->Run().IgnoreError(); });
  while ((*tracker)->core().LiveDevices(kKey) < 1) absl::SleepFor(absl::Milliseconds(5));
  auto client = TrackerClient::Connect({.address = (*tracker)->address(), .token = kToken});
  v1::Artifact artifact;
  artifact.set_content(noop_bytes);
  artifact.set_hash(ContentHash(noop_bytes));
  (*client)
      ->MeasureBatch("warm", kKey, 0, SimRequests("warm", 3, artifact), absl::Seconds(30))
      .IgnoreError();
  std::vector<double> farm_ms;
  for (int i = 0; i < samples; ++i) {
    v1::MeasureRequest r = SimRequests(absl::StrCat("sb", i), 1, artifact)[0];
    r.mutable_timing()->set_repeat(3);
    absl::Time start = absl::Now();
    auto result = (*client)->MeasureBatch(absl::StrCat("sb", i), kKey, 0, {r}, absl::Seconds(30));
    farm_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    if (!result.ok() || (*result)[0].error() != v1::ERROR_NONE) {
      absl::FPrintF(stderr, "sandbox measurement failed\n");
      std::exit(1);
    }
  }
  (*worker)->Stop();
  run.join();
  (*tracker)->Shutdown();
  double local = Percentile(local_ms, 0.5), farm = Percentile(farm_ms, 0.5);
  absl::PrintF(
      "sandbox overhead: in-process p50 %.4f ms, farm+sandbox p50 %.3f ms (p99 %.3f ms), "
      "added %.3f ms per measurement\n",
      local, farm, Percentile(farm_ms, 0.99), farm - local);
}

int Main(bool quick) {
  const std::string noop_path = Runfile("rpc_server/testdata/libnoop.so");
  void* lib = dlopen(noop_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    absl::FPrintF(stderr, "cannot load %s: %s\n", noop_path, dlerror());
    return 1;
  }
  auto noop = reinterpret_cast<TfKernelFn>(dlsym(lib, "kernel"));
  const std::string noop_bytes = ReadFile(noop_path);
  v1::Artifact artifact;
  artifact.set_content(noop_bytes);
  artifact.set_hash(ContentHash(noop_bytes));
  const int requests = quick ? 3000 : 20000;
  const int latency_samples = quick ? 100 : 500;
  absl::PrintF("farm_dispatch: %d no-op requests per run, %d latency samples%s\n", requests,
               latency_samples, quick ? " (quick)" : "");
  std::vector<Row> rows;
  for (int w : {1, 8, 64}) {
    rows.push_back(RunWorkers(w, requests, latency_samples, noop, artifact));
    absl::PrintF("workers=%-3d rps=%8.0f p50_ms=%6.3f p99_ms=%6.3f\n", rows.back().workers,
                 rows.back().rps, rows.back().p50_ms, rows.back().p99_ms);
    std::fflush(stdout);
  }
  SandboxOverhead(quick ? 50 : 200, noop, noop_bytes);
  const Row& last = rows.back();
  absl::PrintF("RESULT workers=%d rps=%.0f p50_ms=%.3f p99_ms=%.3f\n", last.workers, last.rps,
               last.p50_ms, last.p99_ms);
  return 0;
}

}  // namespace
}  // namespace tunefarm

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) quick |= std::strcmp(argv[i], "--quick") == 0;
  return tunefarm::Main(quick);
}
