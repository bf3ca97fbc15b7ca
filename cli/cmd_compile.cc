// `tunefarm compile MODEL.onnx --db tuning.db -o model.so`: the model with the best tuned
// kernel of each fused group, as one shared library with a C ABI, its header and its weights
// (graph/compile_model.h). Groups the log has no record for run their plain loop nest, each
// named in a warning.
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/log_flags.h"
#include "cli/model_flags.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"
#include "graph/compile_model.h"

ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(std::string, device_key);
ABSL_DECLARE_FLAG(std::string, db);
ABSL_DECLARE_FLAG(std::string, o);
ABSL_DECLARE_FLAG(std::string, header);
ABSL_FLAG(std::string, weights, "",
          "compile: the weights file to write; run: the one to load (default: the library's "
          "path with .weights for .so).");

ABSL_FLAG(double, weight_read_gbs, -1,
          "compile: GB/s at which the kernels stream their weights, charged to each tuned "
          "algorithm of a group when choosing the fastest (a Winograd filter is 4x the direct "
          "one); negative: measured on this machine; 0: weights cost nothing.");

namespace tunefarm::cli {
namespace {

// "dir/name.so" → "dir/name" + ext.
std::string Beside(const std::string& library, const std::string& ext) {
  std::string stem = library;
  if (absl::EndsWith(stem, ".so")) stem.resize(stem.size() - 3);
  return stem + ext;
}

}  // namespace

std::string WeightsPathFor(const std::string& library) {
  const std::string flag = absl::GetFlag(FLAGS_weights);
  return flag.empty() ? Beside(library, ".weights") : UserPath(flag);
}

int RunCompile(const std::vector<std::string>& positional) {
  std::string path;
  absl::StatusOr<graph::PreparedModel> model = PrepareModelFromArgs(positional, &path);
  if (!model.ok()) {
    absl::FPrintF(stderr, "tunefarm compile: %s\n", model.status().ToString());
    return ModelExitCode(model.status());
  }
  std::unique_ptr<db::TuningLog> log;
  if (!absl::GetFlag(FLAGS_db).empty()) {
    auto opened = OpenLogFromFlags(/*read_only=*/true);
    if (!opened.ok()) {
      absl::FPrintF(stderr, "tunefarm compile: %s\n", opened.status().ToString());
      return kExitFailure;
    }
    log = *std::move(opened);
  }
  graph::CompileOptions options;
  options.target = absl::GetFlag(FLAGS_target);
  options.device_key = absl::GetFlag(FLAGS_device_key);
  std::string lib = absl::GetFlag(FLAGS_o);
  if (lib == "libkernels.so") {  // export's default: name the model's library after the model
    const size_t slash = path.rfind('/');
    std::string stem = path.substr(slash == std::string::npos ? 0 : slash + 1);
    if (absl::EndsWith(stem, ".onnx")) stem.resize(stem.size() - 5);
    lib = stem + ".so";
  }
  options.library_path = UserPath(lib);
  options.header_path = absl::GetFlag(FLAGS_header).empty() ? Beside(options.library_path, ".h")
                                                            : UserPath(absl::GetFlag(FLAGS_header));
  options.weights_path = WeightsPathFor(options.library_path);
  options.model_name = path;
  options.weight_read_gbs = absl::GetFlag(FLAGS_weight_read_gbs);
  absl::StatusOr<graph::CompileReport> report = graph::CompileModel(*model, log.get(), options);
  if (!report.ok()) {
    absl::FPrintF(stderr, "tunefarm compile: %s\n", report.status().ToString());
    return ModelExitCode(report.status());
  }
  absl::PrintF("%-28s %10s %9s %9s  %s\n", "call", "MFLOP", "tuned ms", "GFLOP/s", "config");
  for (const graph::CompiledGroup& c : report->calls) {
    std::string config =
        c.config_json.size() > 60 ? c.config_json.substr(0, 57) + "..." : c.config_json;
    absl::PrintF("%-28s %10.1f %9s %9s  %s\n", c.label, c.flop / 1e6,
                 c.tuned ? absl::StrFormat("%.3f", c.tuned_seconds * 1e3) : "-",
                 c.tuned && c.tuned_seconds > 0
                     ? absl::StrFormat("%.1f", c.flop / c.tuned_seconds / 1e9)
                     : "-",
                 config);
  }
  for (const std::string& note : report->notes) absl::PrintF("%s\n", note);
  for (const graph::CompiledGroup& c : report->calls) {
    if (!c.tuned) {
      absl::FPrintF(stderr,
                    "warning: %s has no tuned record%s: it runs its plain, unscheduled loop nest "
                    "(slow). Tune it: tunefarm tune-model %s --db ...\n",
                    c.label, log ? " in the log" : " (no --db given)", path);
    }
  }
  absl::PrintF(
      "%d calls (%d untuned); tuned kernels sum to %.3f ms; arena %.1f MB (%.1f MB unshared), "
      "weights %.1f MB\nwrote %s, %s and %s\n",
      report->calls.size(), report->untuned, report->predicted_seconds * 1e3,
      report->arena_bytes / 1e6, report->unshared_bytes / 1e6, report->weights_bytes / 1e6,
      options.library_path, options.header_path, options.weights_path);
  return kExitOk;
}

}  // namespace tunefarm::cli
