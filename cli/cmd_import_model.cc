// `tunefarm import-model MODEL.onnx`: the model as tunefarm sees it: fused groups, their
// operators, shapes, layouts and FLOPs, and the tuning tasks they make.
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/model_flags.h"
#include "cli/subcommand.h"

ABSL_DECLARE_FLAG(std::string, target);
ABSL_FLAG(bool, programs, false, "import-model: also print each task's program.");

namespace tunefarm::cli {

int RunImportModel(const std::vector<std::string>& positional) {
  std::string path;
  absl::StatusOr<graph::PreparedModel> model = PrepareModelFromArgs(positional, &path);
  if (!model.ok()) {
    absl::FPrintF(stderr, "tunefarm import-model: %s\n", model.status().ToString());
    return ModelExitCode(model.status());
  }
  absl::StatusOr<std::vector<graph::ModelTask>> tasks =
      graph::ModelTasks(*model, absl::GetFlag(FLAGS_target), "import");
  if (!tasks.ok()) {
    absl::FPrintF(stderr, "tunefarm import-model: %s\n", tasks.status().ToString());
    return ModelExitCode(tasks.status());
  }
  absl::PrintF("%s\n", path);
  PrintModelTable(*model, *tasks, stdout);
  if (absl::GetFlag(FLAGS_programs)) {
    for (size_t t = 0; t < tasks->size(); ++t) {
      absl::PrintF("\nT%d %s (runs %g times per inference)\n%s", t, (*tasks)[t].spec.program_name(),
                   (*tasks)[t].spec.weight(), (*tasks)[t].spec.program());
    }
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
