// `tunefarm tune-model MODEL.onnx --trials N`: tunes every fused group of a model as one
// multi-task job (the trial budget shared by the task scheduler, each task weighted by how many
// groups run it), on the embedded local farm, a --tracker's farm or a --service.
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/model_flags.h"
#include "cli/run_job.h"
#include "cli/subcommand.h"

ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(int, trials);
ABSL_DECLARE_FLAG(std::string, strategy);
ABSL_DECLARE_FLAG(int, batch);
ABSL_DECLARE_FLAG(int, early_stopping);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(int, top_k);
ABSL_DECLARE_FLAG(std::string, name);

namespace tunefarm::cli {

int RunTuneModel(const std::vector<std::string>& positional) {
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
  for (const graph::ModelTask& t : *tasks) *spec.add_tasks() = t.spec;
  std::string name = absl::GetFlag(FLAGS_name);
  if (name.empty()) {
    const size_t slash = path.rfind('/');
    name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  }
  spec.set_name(name);
  spec.set_target(absl::GetFlag(FLAGS_target));
  spec.set_trials(absl::GetFlag(FLAGS_trials));
  spec.set_strategy(absl::GetFlag(FLAGS_strategy));
  spec.set_batch_size(absl::GetFlag(FLAGS_batch));
  spec.set_early_stopping(absl::GetFlag(FLAGS_early_stopping));
  spec.set_seed(absl::GetFlag(FLAGS_seed));
  spec.set_top_k(absl::GetFlag(FLAGS_top_k) == 0 ? -1 : absl::GetFlag(FLAGS_top_k));
  if (spec.trials() <= 0) {
    absl::FPrintF(stderr, "tunefarm tune-model: --trials must be positive\n");
    return kExitUsage;
  }
  const int batch = spec.batch_size() > 0 ? spec.batch_size() : 16;
  if (spec.trials() < spec.tasks_size() * batch) {
    absl::FPrintF(stderr,
                  "note: %d trials for %d tasks: the scheduler gives each task a first round of "
                  "%d, so some tasks will get none and run untuned (give --trials %d or more, "
                  "or a smaller --batch)\n",
                  spec.trials(), spec.tasks_size(), batch, spec.tasks_size() * batch);
  }
  return RunJob(spec, "tunefarm tune-model");
}

}  // namespace tunefarm::cli
