// `tunefarm export`: the best recorded config of each workload, rebuilt and linked into one
// shared library with a C header (apply-history-best).
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/log_flags.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"
#include "db/record.h"
#include "tuner/export/export_library.h"

ABSL_FLAG(
    std::string, o, "libkernels.so",
    "Library to write: a shared library, or a PTX module (e.g. kernels.ptx) for cuda targets.");
ABSL_FLAG(std::string, header, "", "C header to write (default: kernels.h next to -o).");
ABSL_FLAG(bool, allow_nearest, false,
          "Export an untuned workload with its plain schedule instead of failing.");

namespace tunefarm::cli {

int RunExport(const std::vector<std::string>& positional) {
  if (!positional.empty()) {
    absl::FPrintF(stderr, "tunefarm export: takes no arguments (use --workload)\n");
    return kExitUsage;
  }
  std::vector<db::Workload> workloads;
  for (absl::string_view spec :
       absl::StrSplit(absl::GetFlag(FLAGS_workload), ';', absl::SkipWhitespace())) {
    auto parsed = ParseWorkloadSpec(std::string(spec));
    if (!parsed.ok() || parsed->args.empty()) {
      absl::FPrintF(stderr,
                    "tunefarm export: --workload wants TEMPLATE:ARGS items separated by ';', "
                    "e.g. 'dense:[1024,1024,1024,\"float32\"]' (got '%s')\n",
                    spec);
      return kExitUsage;
    }
    auto w = db::Workload::Make(parsed->template_name, parsed->args, 0);
    if (!w.ok()) {
      absl::FPrintF(stderr, "tunefarm export: %s\n", w.status().message());
      return kExitUsage;
    }
    workloads.push_back(*w);
  }
  if (workloads.empty()) {
    absl::FPrintF(stderr, "tunefarm export: --workload is required\n");
    return kExitUsage;
  }
  if (absl::GetFlag(FLAGS_target).empty()) {
    absl::FPrintF(stderr, "tunefarm export: --target is required\n");
    return kExitUsage;
  }
  auto log = OpenLogFromFlags(/*read_only=*/true);
  if (!log.ok()) {
    absl::FPrintF(stderr, "tunefarm export: %s\n", log.status().ToString());
    return log.status().code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  tuner::ExportOptions options;
  options.target = absl::GetFlag(FLAGS_target);
  options.device_key = absl::GetFlag(FLAGS_device_key);
  options.allow_nearest = absl::GetFlag(FLAGS_allow_nearest);
  options.library_path = UserPath(absl::GetFlag(FLAGS_o));
  std::string header = absl::GetFlag(FLAGS_header);
  if (header.empty()) {
    size_t slash = options.library_path.rfind('/');
    header =
        (slash == std::string::npos ? "" : options.library_path.substr(0, slash + 1)) + "kernels.h";
  }
  options.header_path = UserPath(header);
  auto kernels = tuner::ExportLibrary(**log, workloads, options);
  if (!kernels.ok()) {
    absl::FPrintF(stderr, "tunefarm export: %s\n", kernels.status().ToString());
    return kernels.status().code() == absl::StatusCode::kInvalidArgument ? kExitUsage
                                                                         : kExitFailure;
  }
  absl::PrintF("%-40s %10s  %s\n", "kernel", "GFLOP/s", "config");
  for (const auto& k : *kernels) {
    absl::PrintF("%-40s %10.1f  %s%s%s\n", k.symbol, k.tuned_gflops, k.config_json,
                 k.nearest ? " (nearest shape)" : "",
                 k.emulated ? " (timed on an emulated device, not the hardware)" : "");
    for (const std::string& pack : k.pack_symbols) {
      absl::PrintF("  %s: packs a weight once, before the kernel runs (see the header)\n", pack);
    }
  }
  absl::PrintF("wrote %s and %s\n", options.library_path, options.header_path);
  return kExitOk;
}

}  // namespace tunefarm::cli
