// `tunefarm tune-model MODEL.onnx --trials N`: tunes every fused group of a model as one
// multi-task job (the trial budget shared by the task scheduler, each task weighted by how many
// groups run it), on the embedded local farm, a --tracker's farm or a --service.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/model_flags.h"
#include "cli/run_job.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"

ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(int, trials);
ABSL_DECLARE_FLAG(std::string, strategy);
ABSL_DECLARE_FLAG(int, batch);
ABSL_DECLARE_FLAG(int, early_stopping);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(int, top_k);
ABSL_DECLARE_FLAG(int, top_k_rounds);
ABSL_DECLARE_FLAG(std::string, name);
ABSL_DECLARE_FLAG(std::string, input_shape);
ABSL_FLAG(bool, model_on_service, false,
          "tune-model: MODEL is a path under the job service's --model_dir (with --service): "
          "the service reads it; nothing is sent but its name.");

namespace tunefarm::cli {

namespace {

void SetJobFlags(v1::JobSpec* spec) {
  spec->set_target(absl::GetFlag(FLAGS_target));
  spec->set_trials(absl::GetFlag(FLAGS_trials));
  spec->set_strategy(absl::GetFlag(FLAGS_strategy));
  spec->set_batch_size(absl::GetFlag(FLAGS_batch));
  spec->set_early_stopping(absl::GetFlag(FLAGS_early_stopping));
  spec->set_seed(absl::GetFlag(FLAGS_seed));
  spec->set_top_k(absl::GetFlag(FLAGS_top_k) == 0 ? -1 : absl::GetFlag(FLAGS_top_k));
  spec->set_top_k_rounds(absl::GetFlag(FLAGS_top_k_rounds));
  SetJobTimingCache(spec);
}

// A model the job service reads from its own --model_dir.
int TuneModelOnService(const std::vector<std::string>& positional) {
  if (positional.size() != 1 || ServiceAddress().empty()) {
    absl::FPrintF(stderr,
                  "tunefarm tune-model: --model_on_service needs one MODEL and --service\n");
    return kExitUsage;
  }
  v1::JobSpec spec;
  spec.mutable_model()->set_path(positional[0]);
  spec.mutable_model()->set_input_shapes(absl::GetFlag(FLAGS_input_shape));
  spec.set_name(absl::GetFlag(FLAGS_name).empty() ? positional[0] : absl::GetFlag(FLAGS_name));
  SetJobFlags(&spec);
  return RunJob(spec, "tunefarm tune-model");
}

}  // namespace

int RunTuneModel(const std::vector<std::string>& positional) {
  if (absl::GetFlag(FLAGS_model_on_service)) return TuneModelOnService(positional);
  std::string path;
  absl::StatusOr<graph::PreparedModel> model = PrepareModelFromArgs(positional, &path);
  if (!model.ok()) {
    absl::FPrintF(stderr, "tunefarm tune-model: %s\n", model.status().ToString());
    return ModelExitCode(model.status());
  }
  absl::StatusOr<std::vector<graph::ModelTask>> tasks =
      graph::ModelTasks(*model, absl::GetFlag(FLAGS_target), "validate");
  if (!tasks.ok()) {
    absl::FPrintF(stderr, "tunefarm tune-model: %s\n", tasks.status().ToString());
    return ModelExitCode(tasks.status());
  }
  PrintModelTable(*model, *tasks, stderr);
  v1::JobSpec spec;
  if (ServiceAddress().empty()) {
    for (const graph::ModelTask& t : *tasks) *spec.add_tasks() = t.spec;
  } else {
    // The job service makes the same tasks from the model itself.
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    spec.mutable_model()->set_onnx(bytes.str());
    spec.mutable_model()->set_input_shapes(absl::GetFlag(FLAGS_input_shape));
  }
  std::string name = absl::GetFlag(FLAGS_name);
  if (name.empty()) {
    const size_t slash = path.rfind('/');
    name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  }
  spec.set_name(name);
  SetJobFlags(&spec);
  // The tasks of a model go to the job as tasks when it runs here: they are timed cold, as the
  // job service times a model's (JobSpec.cache), unless --flush_cache=false says otherwise.
  if (spec.cache() == v1::TIMING_CACHE_UNSPECIFIED) spec.set_cache(v1::TIMING_CACHE_COLD);
  if (spec.trials() <= 0) {
    absl::FPrintF(stderr, "tunefarm tune-model: --trials must be positive\n");
    return kExitUsage;
  }
  const int batch = spec.batch_size() > 0 ? spec.batch_size() : 16;
  const int task_count = static_cast<int>(tasks->size());
  if (spec.trials() < task_count * batch) {
    absl::FPrintF(stderr,
                  "note: %d trials for %d tasks: the scheduler gives each task a first round of "
                  "%d, so some tasks will get none and run untuned (give --trials %d or more, "
                  "or a smaller --batch)\n",
                  spec.trials(), task_count, batch, task_count * batch);
  }
  // The model's latency as its tuned kernels add up so far: per group the fastest of its tasks
  // (its program's or an alternative algorithm's).
  std::vector<std::vector<int>> tasks_of_group(model->groups.size());
  for (size_t t = 0; t < tasks->size(); ++t) {
    for (int g : (*tasks)[t].groups) tasks_of_group[g].push_back(static_cast<int>(t));
  }
  auto describe = [tasks_of_group](const v1::JobStatus& s) {
    double latency = 0;
    int kernels = 0, measured = 0;
    for (const std::vector<int>& ts : tasks_of_group) {
      if (ts.empty()) continue;
      ++kernels;
      double best = 0;
      for (int t : ts) {
        if (t >= s.tasks_size() || s.tasks(t).best_cost_s() <= 0) continue;
        best = best == 0 ? s.tasks(t).best_cost_s() : std::min(best, s.tasks(t).best_cost_s());
      }
      if (best > 0) ++measured;
      latency += best;
    }
    return absl::StrFormat("model %.3f ms over %d/%d kernels tuned", latency * 1e3, measured,
                           kernels);
  };
  return RunJob(spec, "tunefarm tune-model", describe);
}

}  // namespace tunefarm::cli
