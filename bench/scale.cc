// Farm scale: the tracker with 1,000 simulated device workers, and the tuner's own limit, its
// candidate builds.
//
//   bazel run -c opt //bench:scale -- [--quick]
//
// 1. Builds: the median wall time of BuildConfig (schedule -> lowered -> LLVM -> linked .so)
//    over configs of the dense template, as the tuner's builder threads run it: in sequence,
//    as a tuning run builds them (parts of their modules come from the object cache), and
//    each from an empty cache.
// 2. The tracker: the real `tunefarm tracker` in its own process (so its CPU time is its own,
//    read from /proc), and N simulated workers in this process: the real Worker (gRPC, lease
//    long polls, heartbeats, artifact cache) over a backend that answers at once with a cost
//    derived from the artifact's hash. For N = 100 and 1,000: the tracker's CPU share while the
//    workers sit idle (heartbeats and long polls only) and while a batch of requests drains,
//    the farm's throughput, and the dispatch latency of single requests (submit -> result).
// 3. Tuning throughput against the 1,000-worker farm, with builds on this machine and on 1, 2
//    and 4 builder processes (`tunefarm server --role builder`). Measurements are instant, so
//    trials/s is the tuner's own rate: builds, cost model, search; each run's winner is
//    compared with the local builds' one.
//
// Ends with: RESULT build_ms_median=... build_ms_cold=... object_cache_hit_rate=...
//            trials_per_s_local=... trials_per_s_builders=...
//            tracker_cpu_frac_1000=... p99_ms_1000=...
// trials_per_s_builders is the 4-builder run (_1 and _2 the others).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "bench/bench_util.h"
#include "bench/child_process.h"
#include "bench/sim_requests.h"
#include "common/content_hash.h"
#include "compiler/codegen/object_cache.h"
#include "farm/tracker_client.h"
#include "rpc_server/device_backend.h"
#include "rpc_server/worker.h"
#include "tuner/service/farm_build.h"
#include "tuner/tuning/builder.h"
#include "tuner/tuning/measurer.h"
#include "tuner/tuning/strategy_factory.h"
#include "tuner/tuning/task.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::bench {
namespace {

constexpr char kKey[] = "sim-scale";
constexpr char kToken[] = "scale-token";

// How long a simulated measurement takes, in ms (0: it answers at once). Set per phase.
std::atomic<int> measure_ms{0};

// A device that measures nothing: a cost between 1 and 2 ms derived from the artifact's hash
// (so a search has something to rank), after measure_ms.
class InstantBackend final : public DeviceBackend {
 public:
  void Describe(v1::DeviceDescription* device) const override {
    device->set_cpu_model("simulated");
  }
  v1::MeasureResult Measure(const v1::MeasureRequest& request, const std::string&,
                            const std::string&) override {
    if (const int ms = measure_ms.load(); ms > 0) absl::SleepFor(absl::Milliseconds(ms));
    const std::string& h = request.artifact().hash();
    const int bucket = h.empty() ? 0 : static_cast<unsigned char>(h.back()) % 100;
    v1::MeasureResult r;
    r.add_costs_s(1e-3 * (1 + bucket / 100.0));
    return r;
  }
  absl::StatusOr<double> MeasureNoise() override { return 0.0; }
};

struct BuildTimes {
  double median_ms = 0;       // in sequence, as a tuning run builds them
  double cold_median_ms = 0;  // each from an empty object cache
  double hit_rate = 0;        // of the sequence's module parts, from the object cache
};

// Build times (ms) over `n` configs of dense 512^3, one at a time: each from an empty object
// cache (codegen/object_cache.h), then all in sequence from an empty cache, as a tuning run
// builds a task's candidates (the kernel entry and the weight packs repeat across configs).
BuildTimes MeasureBuilds(int n) {
  auto task = tuner::MakeTask("dense", {512, 512, 512}, "float32", "llvm", kKey);
  if (!task.ok()) {
    absl::FPrintF(stderr, "dense task: %s\n", task.status().ToString());
    std::exit(1);
  }
  codegen::ObjectCache& cache = codegen::ObjectCache::Process();
  std::vector<double> cold, warm;
  int failed = 0;
  const int64_t size = task->space->size();
  for (bool sequence : {false, true}) {
    cache.Clear();
    for (int i = 0; i < n; ++i) {
      if (!sequence) cache.Clear();
      // Spread over the space (a prime stride), as a search's batches are.
      const int64_t index = (static_cast<int64_t>(i) * 7919) % size;
      tuner::BuildResult r = tuner::BuildConfig(*task, index);
      if (!r.status.ok()) {
        failed += sequence ? 1 : 0;
        continue;
      }
      (sequence ? warm : cold).push_back(r.build_seconds * 1e3);
    }
  }
  const codegen::ObjectCache::Stats stats = cache.stats();
  BuildTimes t;
  t.median_ms = Median(warm);
  t.cold_median_ms = Median(cold);
  const int64_t lookups = stats.hits + stats.misses;
  t.hit_rate = lookups > 0 ? static_cast<double>(stats.hits) / static_cast<double>(lookups) : 0;
  absl::PrintF(
      "builds: %zu configs of dense 512^3 built (%d refused by the space's checks): in sequence "
      "median %.1f ms, p90 %.1f ms (%.0f%% of module parts from the object cache); each from an "
      "empty cache median %.1f ms, p90 %.1f ms\n",
      warm.size(), failed, t.median_ms, Percentile(warm, 0.9), 100 * t.hit_rate, t.cold_median_ms,
      Percentile(cold, 0.9));
  return t;
}

struct Row {
  int workers = 0;
  double register_s = 0;
  // Tracker CPU share idle, with every device busy on 1 s measurements, and at saturation
  // (measurements answered at once); the request rates of the last two.
  double idle_cpu_frac = 0, busy_cpu_frac = 0, busy_rps = 0, sat_cpu_frac = 0, sat_rps = 0;
  double p50_ms = 0, p99_ms = 0;
  // The same with `held_jobs` finished jobs whose results nobody fetched yet, and the median
  // time of a farm summary (`tunefarm status`) then.
  int held_jobs = 0;
  double held_p50_ms = 0, held_p99_ms = 0, summary_ms = 0;
};

// Drains `n` requests through the farm; returns {tracker CPU share, requests per second}.
std::pair<double, double> Drain(TrackerClient& client, pid_t tracker_pid, const std::string& job,
                                int n, const v1::Artifact& artifact) {
  const double cpu0 = ProcessCpuSeconds(tracker_pid);
  const absl::Time t0 = absl::Now();
  auto results =
      client.MeasureBatch(job, kKey, 0, SimRequests(job, n, artifact), absl::Seconds(600));
  const double seconds = absl::ToDoubleSeconds(absl::Now() - t0);
  if (!results.ok() || static_cast<int>(results->size()) != n) {
    absl::FPrintF(stderr, "batch %s failed: %s\n", job, results.status().ToString());
    std::exit(1);
  }
  return {(ProcessCpuSeconds(tracker_pid) - cpu0) / seconds, n / seconds};
}

// The simulated farm: N workers in this process.
class SimulatedWorkers {
 public:
  SimulatedWorkers(const std::string& address, int n) {
    for (int i = 0; i < n; ++i) {
      WorkerOptions w;
      w.tracker_address = address;
      w.token = kToken;
      w.key = kKey;
      w.worker_id = absl::StrCat("sim-", i);
      w.calibration_period = absl::ZeroDuration();
      auto worker = Worker::Create(w, std::make_unique<InstantBackend>());
      if (!worker.ok()) {
        absl::FPrintF(stderr, "worker: %s\n", worker.status().ToString());
        std::exit(1);
      }
      workers_.push_back(std::move(*worker));
    }
    for (auto& w : workers_) {
      Worker* p = w.get();
      threads_.emplace_back([p] { p->Run().IgnoreError(); });
    }
  }
  ~SimulatedWorkers() {
    for (auto& w : workers_) w->Stop();
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
};

// Waits until the tracker reports `n` live workers of `key`; false after `limit`.
bool WaitForWorkers(TrackerClient& client, int n, absl::Duration limit,
                    const std::string& key = kKey) {
  const absl::Time end = absl::Now() + limit;
  while (absl::Now() < end) {
    auto live = client.LiveDevices(key);
    if (live.ok() && *live >= n) return true;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return false;
}

Row MeasureFarm(const std::string& address, pid_t tracker_pid, TrackerClient& client,
                int num_workers, bool quick, const v1::Artifact& artifact) {
  Row row;
  row.workers = num_workers;
  const absl::Time start = absl::Now();
  SimulatedWorkers farm(address, num_workers);
  if (!WaitForWorkers(client, num_workers, absl::Seconds(120))) {
    absl::FPrintF(stderr, "only %d of %d workers registered\n",
                  client.LiveDevices(kKey).value_or(-1), num_workers);
    std::exit(1);
  }
  row.register_s = absl::ToDoubleSeconds(absl::Now() - start);
  // Every worker fetches the artifact once (as a real farm would, once per content hash).
  client
      .MeasureBatch("warm", kKey, 0, SimRequests("warm", 2 * num_workers, artifact),
                    absl::Seconds(120))
      .IgnoreError();
  // Idle: heartbeats and lease long polls only.
  const absl::Duration idle = absl::Seconds(quick ? 4 : 15);
  const double cpu0 = ProcessCpuSeconds(tracker_pid);
  const absl::Time t0 = absl::Now();
  absl::SleepFor(idle);
  row.idle_cpu_frac =
      (ProcessCpuSeconds(tracker_pid) - cpu0) / absl::ToDoubleSeconds(absl::Now() - t0);
  // Busy: every device measuring, 1 s per measurement (N measurements per second).
  measure_ms = 1000;
  std::tie(row.busy_cpu_frac, row.busy_rps) =
      Drain(client, tracker_pid, absl::StrCat("busy-", num_workers), num_workers * (quick ? 3 : 6),
            artifact);
  // Saturation: measurements answered at once, the tracker's own limit.
  measure_ms = 0;
  std::tie(row.sat_cpu_frac, row.sat_rps) =
      Drain(client, tracker_pid, absl::StrCat("sat-", num_workers), quick ? 5000 : 30000, artifact);
  // Dispatch latency: one request at a time, submit -> result, with every worker polling.
  const int samples = quick ? 100 : 400;
  std::vector<double> ms =
      SingleRequestLatencies(client, absl::StrCat("lat-", num_workers), kKey, samples, artifact);
  row.p50_ms = Percentile(ms, 0.5);
  row.p99_ms = Percentile(ms, 0.99);
  // Finished jobs the tracker still holds (their clients have not fetched the results): one
  // request each, all measured, none fetched. Dispatch and status must not slow down with them.
  row.held_jobs = quick ? 500 : 2000;
  for (int j = 0; j < row.held_jobs; ++j) {
    const std::string job = absl::StrCat("held-", num_workers, "-", j);
    if (!client.Submit(job, kKey, 0, SimRequests(job, 1, artifact)).ok()) std::exit(1);
  }
  for (int i = 0; i < 600; ++i) {  // bounded: a minute for them all to be measured
    auto summary = client.Summary();
    int queued = 0;
    if (summary.ok()) {
      for (const auto& q : summary->queues()) queued += q.queued() + q.leased();
    }
    if (summary.ok() && queued == 0) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  std::vector<double> held = SingleRequestLatencies(client, absl::StrCat("held-lat-", num_workers),
                                                    kKey, samples, artifact);
  row.held_p50_ms = Percentile(held, 0.5);
  row.held_p99_ms = Percentile(held, 0.99);
  std::vector<double> summary_ms;
  for (int i = 0; i < 20; ++i) {
    const absl::Time s = absl::Now();
    if (!client.Summary().ok()) std::exit(1);
    summary_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - s));
  }
  row.summary_ms = Median(summary_ms);
  return row;
}

// The tuner (XGBoost search, builds on this machine's cores, no tuning log) on dense 256^3
// against the farm: its result, with where the wall time went.
tuner::TuneResult TuneOnFarm(TrackerClient& client, int trials, const std::string& builder_key) {
  auto task = tuner::MakeTask("dense", {256, 256, 256}, "float32", "llvm", kKey);
  if (!task.ok()) std::exit(1);
  auto strategy = tuner::MakeStrategy("xgb", *task, /*seed=*/1, nullptr);
  if (!strategy.ok()) std::exit(1);
  tuner::TrackerMeasurerOptions mo;
  mo.job_id = "scale-tune";
  mo.device_key = kKey;
  tuner::TrackerMeasurer measurer(&client, mo);
  tuner::TuneOptions to;
  to.trials = trials;
  to.batch_size = 16;
  to.build_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  to.top_k = 0;
  if (!builder_key.empty()) {
    to.build_batch = [&](const std::vector<int64_t>& indices) {
      auto built = tuner::BuildOnFarm(client, "scale-builds", builder_key, *task, indices,
                                      absl::Minutes(10));
      if (!built.ok()) {
        absl::FPrintF(stderr, "builds on the farm failed: %s\n", built.status().ToString());
        std::exit(1);
      }
      return *std::move(built);
    };
  }
  auto result = tuner::Tune(*task, **strategy, measurer, nullptr, to, nullptr);
  if (!result.ok()) {
    absl::FPrintF(stderr, "tuning failed: %s\n", result.status().ToString());
    std::exit(1);
  }
  return *result;
}

}  // namespace

int Run(bool quick) {
  const std::string bin = FindBinary("", "cli/tunefarm");
  if (bin.empty()) {
    absl::FPrintF(stderr, "cannot find cli/tunefarm (run with bazel run)\n");
    return 1;
  }
  const BuildTimes builds = MeasureBuilds(quick ? 12 : 40);

  // The tracker, in its own process.
  const int port = FreeLoopbackPort();
  const std::string address = absl::StrCat("127.0.0.1:", port);
  const std::string tracker_log = absl::StrCat("/tmp/tunefarm-scale-tracker-", getpid(), ".log");
  ChildProcess tracker("tracker",
                       {bin, "tracker", "--host", "127.0.0.1", "--port", absl::StrCat(port),
                        "--token", kToken, "--keys", kKey},
                       "", tracker_log);
  if (absl::Status s = tracker.Start(); !s.ok()) {
    absl::FPrintF(stderr, "tracker: %s\n", s.ToString());
    return 1;
  }
  auto client = TrackerClient::Connect({.address = address, .token = kToken});
  if (!client.ok()) {
    absl::FPrintF(stderr, "client: %s\n", client.status().ToString());
    return 1;
  }
  for (int i = 0; i < 100 && !(*client)->Summary().ok(); ++i) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  v1::Artifact artifact;
  artifact.set_content("simulated kernel");
  artifact.set_hash(ContentHash(artifact.content()));

  std::vector<Row> rows;
  absl::PrintF("\n%8s %9s %9s %15s %20s %8s %8s\n", "workers", "register", "cpu idle",
               "busy: cpu req/s", "saturated: cpu req/s", "p50 ms", "p99 ms");
  for (int n : {100, 1000}) {
    rows.push_back(MeasureFarm(address, tracker.pid(), **client, n, quick, artifact));
    const Row& r = rows.back();
    absl::PrintF("%8d %8.1fs %8.1f%% %7.1f%% %7.0f %11.1f%% %8.0f %8.2f %8.2f\n", r.workers,
                 r.register_s, 100 * r.idle_cpu_frac, 100 * r.busy_cpu_frac, r.busy_rps,
                 100 * r.sat_cpu_frac, r.sat_rps, r.p50_ms, r.p99_ms);
  }
  absl::PrintF(
      "(cpu: the tracker process's CPU time over wall time, one core = 100%%; busy: every "
      "device takes 1 s per measurement; saturated: measurements answered at once; p50/p99: "
      "one request at a time, submit to result, every device polling)\n");
  for (const Row& r : rows) {
    absl::PrintF(
        "%d workers, %d finished jobs held (results not fetched): dispatch p50 %.2f ms, "
        "p99 %.2f ms; farm summary (`tunefarm status`) %.2f ms\n",
        r.workers, r.held_jobs, r.held_p50_ms, r.held_p99_ms, r.summary_ms);
  }
  absl::PrintF("\n");

  // The tuner against 1,000 simulated devices: builds on this machine, then on 1, 2 and 4
  // builder processes (`tunefarm server --role builder`, each building one candidate at a time).
  const int trials = quick ? 48 : 192;
  tuner::TuneResult tuned;
  std::vector<std::pair<int, tuner::TuneResult>> with_builders;
  {
    SimulatedWorkers farm(address, 1000);
    if (!WaitForWorkers(**client, 1000, absl::Seconds(120))) return 1;
    tuned = TuneOnFarm(**client, trials, "");
    for (int n : {1, 2, 4}) {
      // A key per round, so builders killed in an earlier round are never waited for.
      const std::string key = absl::StrCat("builder-", n);
      std::vector<std::unique_ptr<ChildProcess>> builders;
      for (int i = 0; i < n; ++i) {
        builders.push_back(std::make_unique<ChildProcess>(
            key,
            std::vector<std::string>{bin, "server", "--role", "builder", "--tracker", address,
                                     "--key", key, "--token", kToken},
            "", absl::StrCat(tracker_log, ".", key)));
        if (!builders.back()->Start().ok()) return 1;
      }
      if (!WaitForWorkers(**client, n, absl::Seconds(60), key)) {
        absl::FPrintF(stderr, "%d builders did not register\n", n);
        return 1;
      }
      with_builders.emplace_back(n, TuneOnFarm(**client, trials, key));
      for (auto& b : builders) {
        b->Kill();
        unlink(b->log_file().c_str());
      }
    }
  }
  auto describe = [&](const std::string& how, const tuner::TuneResult& r) {
    const tuner::TuneTimeSplit& t = r.time;
    absl::PrintF(
        "tuning dense 256^3 (xgb, batch 16), %s, %d trials: %.1f trials/s; of %.1f s: build "
        "%.1f s, search (proposals and model fits) %.1f s, farm %.1f s; winner %lld%s\n",
        how, r.measured, r.measured / t.total_s, t.total_s, t.build_s, t.search_s, t.measure_s,
        static_cast<long long>(r.best_index),
        r.best_index == tuned.best_index ? " (same as local builds)" : " (DIFFERENT)");
  };
  describe(absl::StrCat("builds here on ", std::thread::hardware_concurrency(), " threads"), tuned);
  for (const auto& [n, r] : with_builders) describe(absl::StrCat(n, " builder processes"), r);
  const double tps_local = tuned.measured / tuned.time.total_s;
  auto tps = [](const tuner::TuneResult& r) { return r.measured / r.time.total_s; };
  tracker.Kill();
  unlink(tracker_log.c_str());
  const Row& big = rows.back();
  PrintResult({{"build_ms_median", Fixed(builds.median_ms, 1)},
               {"build_ms_cold", Fixed(builds.cold_median_ms, 1)},
               {"object_cache_hit_rate", Fixed(builds.hit_rate, 2)},
               {"trials_per_s_local", Fixed(tps_local, 1)},
               {"trials_per_s_builders", Fixed(tps(with_builders.back().second), 1)},
               {"trials_per_s_builders_1", Fixed(tps(with_builders[0].second), 1)},
               {"trials_per_s_builders_2", Fixed(tps(with_builders[1].second), 1)},
               {"tracker_cpu_frac_1000", Fixed(big.busy_cpu_frac)},
               {"tracker_cpu_frac_idle_1000", Fixed(big.idle_cpu_frac)},
               {"tracker_rps_saturated_1000", Fixed(big.sat_rps, 0)},
               {"p99_ms_1000", Fixed(big.p99_ms, 2)},
               {"p99_ms_1000_held_jobs", Fixed(big.held_p99_ms, 2)},
               {"summary_ms_1000", Fixed(big.summary_ms, 2)}});
  return 0;
}

}  // namespace tunefarm::bench

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  return tunefarm::bench::Run(tunefarm::bench::QuickMode(argc, argv));
}
