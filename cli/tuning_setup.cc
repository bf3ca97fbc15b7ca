#include "cli/tuning_setup.h"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/farm_flags.h"
#include "cli/model_flags.h"
#include "cli/subcommand.h"
#include "common/transport.h"
#include "tuner/tuning/autotvm_seed.h"
#include "tuner/tuning/strategy_factory.h"

ABSL_DECLARE_FLAG(std::string, db);
ABSL_DECLARE_FLAG(std::string, key);
ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(std::string, device);
ABSL_FLAG(int, workers, 0,
          "Embedded local farm: device workers (default: one per core / --threads_per_worker; "
          "one with a GPU --device).");
ABSL_FLAG(int, threads_per_worker, 1,
          "Embedded local farm: threads each measured kernel may use (OMP_NUM_THREADS).");
ABSL_FLAG(int, build_threads, 0, "Threads compiling candidates (default: one per core).");
ABSL_FLAG(std::string, builders, "",
          "Device key of builder workers (tunefarm server --role builder): while any is live, "
          "candidates are built on them; else here.");
ABSL_FLAG(int, repeat, 3, "Timed repeats per measurement.");
ABSL_FLAG(int, min_repeat_ms, 20, "Each repeat runs the kernel until it lasts this long.");
ABSL_FLAG(bool, flush_cache, false,
          "Cold-cache timing (TVM's enable_cpu_cache_flush): before every timed run, evict the "
          "kernel's arguments but the first (the layer's input) from the CPU caches, as a layer "
          "inside a network finds its weights; one run per repeat (--min_repeat_ms is ignored). "
          "A model's job (tune-model, or a job sent with a model) is timed cold unless "
          "--flush_cache=false; serve: the default of its jobs that do not say.");
ABSL_FLAG(std::string, service, "", "Job service address (a `tunefarm serve`), HOST:PORT.");
ABSL_FLAG(std::string, model_dir, "",
          "serve: the directory whose ONNX models jobs may name by relative path (default: none; "
          "models come as bytes).");
ABSL_FLAG(int, max_model_mb, 256, "serve: the largest ONNX model a job may send, in MiB.");
ABSL_FLAG(std::string, seed_from_log, "",
          "tune: an AutoTVM log (TVM's JSON lines) whose translated configs of the tuned workload "
          "are measured first, best first, as the first round (at most --batch of them).");

namespace tunefarm::cli {

std::string UserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  if (const char* dir = getenv("BUILD_WORKING_DIRECTORY")) return absl::StrCat(dir, "/", path);
  return path;
}

absl::StatusOr<std::unique_ptr<TuningStack>> StartTuningStack(bool persist_jobs) {
  auto stack = std::make_unique<TuningStack>();
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  FarmSetupOptions fo;
  fo.tracker_address = FarmTrackerAddress("");
  fo.token = FarmClientToken();
  fo.tls = FarmTls();
  fo.key = absl::GetFlag(FLAGS_key);
  fo.target = absl::GetFlag(FLAGS_target).empty() ? "llvm" : absl::GetFlag(FLAGS_target);
  // A cuda target is measured on the first GPU unless --device says otherwise.
  fo.device = absl::GetFlag(FLAGS_device);
  if (fo.device.empty()) fo.device = absl::StartsWith(fo.target, "cuda") ? "cuda:0" : "cpu";
  fo.num_workers = absl::GetFlag(FLAGS_workers);
  fo.threads_per_worker = absl::GetFlag(FLAGS_threads_per_worker);
  auto farm = StartFarm(fo);
  if (!farm.ok()) return farm.status();
  stack->farm = std::move(*farm);
  std::string db = absl::GetFlag(FLAGS_db).empty() ? "tuning.db" : absl::GetFlag(FLAGS_db);
  auto log = db::TuningLog::Open(UserPath(db));
  if (!log.ok()) return log.status();
  stack->log = std::move(*log);
  if (persist_jobs) {
    auto store = db::JobStore::Open(stack->log->path());
    if (!store.ok()) return store.status();
    stack->store = std::move(*store);
  }
  tuner::JobManagerOptions mo;
  mo.client = stack->farm->client.get();
  mo.log = stack->log.get();
  mo.store = stack->store.get();
  mo.make_strategy = tuner::MakeStrategy;
  mo.default_device_key = stack->farm->device_key;
  mo.build_threads =
      absl::GetFlag(FLAGS_build_threads) > 0 ? absl::GetFlag(FLAGS_build_threads) : cores;
  mo.builder_key = absl::GetFlag(FLAGS_builders);
  mo.timing.set_repeat(absl::GetFlag(FLAGS_repeat));
  mo.timing.set_min_repeat_ms(absl::GetFlag(FLAGS_min_repeat_ms));
  mo.timing.set_flush_cache(absl::GetFlag(FLAGS_flush_cache));
  const std::string model_dir = UserPath(absl::GetFlag(FLAGS_model_dir));
  mo.expand_model = [model_dir](const v1::ModelSpec& model, const std::string& target) {
    return ExpandModel(model, target, model_dir);
  };
  mo.max_model_bytes = int64_t{absl::GetFlag(FLAGS_max_model_mb)} << 20;
  const std::string seed_path = absl::GetFlag(FLAGS_seed_from_log);
  if (!seed_path.empty()) {
    std::ifstream in(UserPath(seed_path), std::ios::binary);
    if (!in) return absl::NotFoundError(absl::StrCat("--seed_from_log: cannot read ", seed_path));
    std::stringstream text;
    text << in.rdbuf();
    mo.seed_configs = [text = text.str(), seed_path](const tuner::TuneTask& task, int batch_size) {
      std::istringstream log(text);
      absl::StatusOr<tuner::AutotvmSeeds> seeds = tuner::SeedsFromAutotvmLog(log, task, batch_size);
      if (!seeds.ok()) {
        absl::PrintF("not seeded from %s: %s\n", seed_path, seeds.status().ToString());
        return std::vector<int64_t>();
      }
      absl::PrintF(
          "seeded %d configs of %s from %s (its records of this workload: %d, of which %d have "
          "no translated config)\n",
          seeds->indices.size(), task.workload.ToString(), seed_path, seeds->matching,
          seeds->untranslated);
      return seeds->indices;
    };
  }
  stack->manager = std::make_unique<tuner::JobManager>(mo);
  return stack;
}

std::string ServiceAddress() { return absl::GetFlag(FLAGS_service); }

void SetJobTimingCache(v1::JobSpec* spec) {
  if (!FlagOnCommandLine("flush_cache")) return;
  spec->set_cache(absl::GetFlag(FLAGS_flush_cache) ? v1::TIMING_CACHE_COLD : v1::TIMING_CACHE_WARM);
}

absl::StatusOr<std::unique_ptr<v1::JobService::Stub>> ConnectJobService() {
  if (ServiceAddress().empty()) return absl::InvalidArgumentError("--service is required");
  // Room for a model's bytes in SubmitJob (the service bounds what it accepts).
  auto channel = MakeChannel(ServiceAddress(), FarmTls(), kMaxModelMessageBytes);
  if (!channel.ok()) return channel.status();
  return v1::JobService::NewStub(*channel);
}

void AttachServiceToken(grpc::ClientContext* ctx) { AttachToken(ctx, FarmClientToken()); }

}  // namespace tunefarm::cli
