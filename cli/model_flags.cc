#include "cli/model_flags.h"

#include <map>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"

ABSL_FLAG(std::string, input_shape, "",
          "Shapes of the model's inputs, binding dynamic dimensions: NAME=D0,D1,... items "
          "separated by ';', e.g. input=1,3,224,224.");

namespace tunefarm::cli {
namespace {

// "NAME=D0,D1,...;NAME=..." (the --input_shape flag, ModelSpec.input_shapes).
absl::StatusOr<graph::ImportOptions> ParseInputShapes(const std::string& text) {
  graph::ImportOptions options;
  for (absl::string_view item : absl::StrSplit(text, ';', absl::SkipWhitespace())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    std::vector<int64_t> dims;
    bool ok = !kv.first.empty();
    for (absl::string_view d : absl::StrSplit(kv.second, ',', absl::SkipWhitespace())) {
      int64_t v;
      ok = ok && absl::SimpleAtoi(d, &v) && v >= 1 && v <= (int64_t{1} << 30);
      dims.push_back(v);
    }
    if (!ok || dims.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input shape '", item, "' is not NAME=D0,D1,... with positive dims"));
    }
    options.input_shapes[kv.first] = dims;
  }
  return options;
}

}  // namespace

absl::StatusOr<graph::PreparedModel> PrepareModelFromArgs(
    const std::vector<std::string>& positional, std::string* path) {
  if (positional.size() != 1) {
    return absl::InvalidArgumentError("expected one MODEL.onnx");
  }
  absl::StatusOr<graph::ImportOptions> options = ParseInputShapes(absl::GetFlag(FLAGS_input_shape));
  if (!options.ok()) return options.status();
  *path = UserPath(positional[0]);
  return graph::PrepareModelFile(*path, *options);
}

void PrintModelTable(const graph::PreparedModel& model, const std::vector<graph::ModelTask>& tasks,
                     FILE* out) {
  std::map<int, int> task_of;
  std::map<int, std::string> alternatives;
  for (size_t t = 0; t < tasks.size(); ++t) {
    for (int g : tasks[t].groups) {
      if (tasks[t].variant == 0) {
        task_of[g] = static_cast<int>(t);
      } else {
        absl::StrAppend(&alternatives[g], " +T", t);
      }
    }
  }
  absl::FPrintF(out, "%4s  %-16s %-24s %-22s %-9s %9s  %s\n", "#", "kind", "operators", "output",
                "layout", "MFLOP", "task");
  double flop = 0;
  int kernels = 0;
  for (size_t i = 0; i < model.groups.size(); ++i) {
    const graph::FusedGroup& g = model.groups[i];
    const graph::Tensor* t = model.graph.Find(g.output);
    const graph::Layout layout = model.layouts.layouts.count(g.output)
                                     ? model.layouts.layouts.at(g.output)
                                     : graph::Layout{};
    auto it = task_of.find(static_cast<int>(i));
    const double f = it == task_of.end() ? 0 : tasks[it->second].task.workload.flop;
    flop += f;
    if (it != task_of.end()) ++kernels;
    std::string label = g.label.size() > 24 ? g.label.substr(0, 21) + "..." : g.label;
    absl::FPrintF(
        out, "%4d  %-16s %-24s %-22s %-9s %9.1f  %s\n", i, graph::GroupKindName(g.kind), label,
        t ? graph::ShapeString(t->shape) : "?",
        layout.block ? absl::StrCat("nchw", layout.block, "c") : "nchw", f / 1e6,
        it == task_of.end() ? "(view: no kernel)" : absl::StrCat("T", it->second, alternatives[i]));
  }
  int64_t weights = 0;
  for (const graph::GroupProgram& p : model.programs) {  // alternatives: the same weights
    for (const graph::ProgramArg& a : p.args) weights += static_cast<int64_t>(a.data.size()) * 4;
  }
  absl::FPrintF(
      out,
      "%d ONNX nodes after folding → %d fused groups (%d kernels), %d distinct tuning "
      "tasks (+Tk: an alternative algorithm's, the faster tuned one runs); %.2f GFLOP per "
      "inference; %.1f MB of weights\n",
      model.graph.nodes.size(), model.groups.size(), kernels, tasks.size(), flop / 1e9,
      weights / 1e6);
}

absl::StatusOr<std::vector<v1::TaskSpec>> ExpandModel(const v1::ModelSpec& model,
                                                      const std::string& target,
                                                      const std::string& model_dir) {
  absl::StatusOr<graph::ImportOptions> options = ParseInputShapes(model.input_shapes());
  if (!options.ok()) return options.status();
  absl::StatusOr<graph::Graph> g;
  if (!model.onnx().empty()) {
    if (!model.path().empty())
      return absl::InvalidArgumentError("give the model's bytes or a path");
    g = graph::ImportOnnx(model.onnx(), *options);
  } else {
    const std::string& path = model.path();
    if (model_dir.empty()) {
      return absl::InvalidArgumentError(
          "this service reads no models from its disk (start it with --model_dir); send the "
          "model's bytes");
    }
    if (path.empty() || path[0] == '/' || absl::StrContains(path, "..")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "model path '", path, "' must be relative to the service's --model_dir, without '..'"));
    }
    g = graph::ImportOnnxFile(absl::StrCat(model_dir, "/", path), *options);
  }
  if (!g.ok()) return g.status();
  absl::StatusOr<graph::PreparedModel> prepared = graph::PrepareGraph(*std::move(g));
  if (!prepared.ok()) return prepared.status();
  absl::StatusOr<std::vector<graph::ModelTask>> tasks =
      graph::ModelTasks(*prepared, target, "expand");
  if (!tasks.ok()) return tasks.status();
  std::vector<v1::TaskSpec> specs;
  for (graph::ModelTask& t : *tasks) specs.push_back(std::move(t.spec));
  return specs;
}

int ModelExitCode(const absl::Status& s) {
  return s.code() == absl::StatusCode::kInvalidArgument ||
                 s.code() == absl::StatusCode::kUnimplemented ||
                 s.code() == absl::StatusCode::kNotFound
             ? kExitUsage
             : kExitFailure;
}

}  // namespace tunefarm::cli
