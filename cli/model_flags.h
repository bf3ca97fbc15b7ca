// What the model commands (import-model, tune-model, compile) share: reading a model with its
// input-shape bindings, and the table of its fused groups.
#ifndef TUNEFARM_CLI_MODEL_FLAGS_H_
#define TUNEFARM_CLI_MODEL_FLAGS_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/model_tasks.h"
#include "graph/prepare_model.h"

namespace tunefarm::cli {

// The model file named by the positional arguments, imported with --input_shape and prepared
// (graph/prepare_model.h). InvalidArgument: not exactly one file, a malformed --input_shape;
// the errors of PrepareModelFile.
absl::StatusOr<graph::PreparedModel> PrepareModelFromArgs(
    const std::vector<std::string>& positional, std::string* path);

// The model's fused groups as a table (kind, operators, output shape and layout, GFLOP, the
// task that tunes it), then a summary line.
void PrintModelTable(const graph::PreparedModel& model, const std::vector<graph::ModelTask>& tasks,
                     FILE* out);

// The tasks of a model submitted to the job service (JobManagerOptions::expand_model): its
// bytes, or a relative path under `model_dir` (empty: paths refused). InvalidArgument: a bad
// path or input shapes, the errors of import and preparation.
absl::StatusOr<std::vector<v1::TaskSpec>> ExpandModel(const v1::ModelSpec& model,
                                                      const std::string& target,
                                                      const std::string& model_dir);

// The weights file of compiled library `library`: --weights, or the library's path with
// ".weights" for ".so" (cmd_compile.cc; `compile` writes it, `run` reads it).
std::string WeightsPathFor(const std::string& library);

// The exit code for a failed model step (usage for bad input, failure otherwise).
int ModelExitCode(const absl::Status& s);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_MODEL_FLAGS_H_
