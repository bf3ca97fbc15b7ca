// `tunefarm tune OPERATOR --shape ...` or `tunefarm tune --expr FILE --shape M=...,N=...`: runs a
// tuning job and shows its progress. Without
// --service the job runs in this process, on the embedded local farm unless --tracker is given.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/farm_flags.h"
#include "cli/run_job.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"
#include "common/transport.h"
#include "tuner/service/task_spec.h"
#include "tuner/templates/registry.h"

ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(std::string, key);
ABSL_DECLARE_FLAG(std::string, seed_from_log);
ABSL_FLAG(std::string, shape, "",
          "Shape arguments, comma-separated: dense M,N,K; batch_matmul B,M,N,K; conv2d "
          "N,C,H,W,K,R,S,stride,pad; depthwise_conv2d N,C,H,W,R,S,stride,pad; softmax M,N; "
          "bias_relu M,N; the int8 AMX templates (--dtype int8) dense_u8s8_amx M,N,K and "
          "conv2d_u8s8_amx as conv2d. With --expr, the program's shape variables by name: "
          "M=128,N=768,K=768.");
ABSL_FLAG(std::string, expr, "",
          "A file holding a program of the tensor-expression language to tune instead of a "
          "template (see tuner/README.md); its space is generated.");
ABSL_FLAG(std::string, space, "template",
          "For a template: 'template' (its own space) or 'generated' (the space generated from "
          "its computation, as for programs).");
ABSL_FLAG(std::string, dtype, "float32", "Element type.");
ABSL_FLAG(int, trials, 1000, "Measurements to make.");
ABSL_FLAG(std::string, strategy, "xgb", "Search: xgb, xgb_reg, ga, random or grid.");
ABSL_FLAG(int, batch, 16, "Configs built and measured per round.");
ABSL_FLAG(int, early_stopping, 0, "Stop after this many trials without improvement (0: never).");
ABSL_FLAG(uint64_t, seed, 0, "Seed of the search.");
ABSL_FLAG(int, top_k, 5, "Configs re-measured before the winner is declared (0: none).");
ABSL_FLAG(int, top_k_rounds, 3,
          "Rounds the top_k configs are re-measured in (1-10); the winner has the lowest median "
          "of its re-measurements.");
ABSL_FLAG(std::string, name, "", "Job name (default: the workload).");

namespace tunefarm::cli {
namespace {

// The task of a program file: its text, its name (the file's stem) and NAME=VALUE shapes.
absl::Status ProgramTaskFromFlags(const std::string& path, v1::TaskSpec* task) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("--expr: cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  task->set_program(text.str());
  std::string stem = std::filesystem::path(path).stem().string();
  std::replace_if(
      stem.begin(), stem.end(), [](char c) { return !absl::ascii_isalnum(c) && c != '-'; }, '_');
  task->set_program_name(stem.substr(0, 64));
  for (absl::string_view part :
       absl::StrSplit(absl::GetFlag(FLAGS_shape), ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    int64_t v;
    if (kv.first.empty() || !absl::SimpleAtoi(kv.second, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shape: '", part, "' is not NAME=VALUE (e.g. M=128)"));
    }
    (*task->mutable_shapes())[std::string(absl::StripAsciiWhitespace(kv.first))] = v;
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::JobSpec> SpecFromFlags(const std::vector<std::string>& positional) {
  v1::JobSpec spec;
  v1::TaskSpec* task = spec.add_tasks();
  const std::string expr = absl::GetFlag(FLAGS_expr);
  const std::string space = absl::GetFlag(FLAGS_space);
  if (space != "template" && space != "generated") {
    return absl::InvalidArgumentError("--space is 'template' or 'generated'");
  }
  if (!expr.empty()) {
    if (!positional.empty()) {
      return absl::InvalidArgumentError("give either an OPERATOR or --expr FILE, not both");
    }
    if (absl::Status s = ProgramTaskFromFlags(expr, task); !s.ok()) return s;
  } else {
    if (positional.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("expected one OPERATOR (",
                                                     absl::StrJoin(tuner::TemplateNames(), ", "),
                                                     ") or --expr FILE"));
    }
    task->set_template_name(space == "generated" ? absl::StrCat("generated:", positional[0])
                                                 : positional[0]);
    for (absl::string_view part :
         absl::StrSplit(absl::GetFlag(FLAGS_shape), ',', absl::SkipEmpty())) {
      int64_t v;
      if (!absl::SimpleAtoi(part, &v)) {
        return absl::InvalidArgumentError(absl::StrCat("--shape: '", part, "' is not an integer"));
      }
      task->add_args(v);
    }
    if (task->args_size() == 0) return absl::InvalidArgumentError("--shape is required");
    task->set_dtype(absl::GetFlag(FLAGS_dtype));
  }
  spec.set_name(absl::GetFlag(FLAGS_name));
  spec.set_target(absl::GetFlag(FLAGS_target));
  spec.set_trials(absl::GetFlag(FLAGS_trials));
  spec.set_strategy(absl::GetFlag(FLAGS_strategy));
  spec.set_batch_size(absl::GetFlag(FLAGS_batch));
  spec.set_early_stopping(absl::GetFlag(FLAGS_early_stopping));
  spec.set_seed(absl::GetFlag(FLAGS_seed));
  spec.set_top_k(absl::GetFlag(FLAGS_top_k) == 0 ? -1 : absl::GetFlag(FLAGS_top_k));
  spec.set_top_k_rounds(absl::GetFlag(FLAGS_top_k_rounds));
  SetJobTimingCache(&spec);
  if (spec.trials() <= 0) return absl::InvalidArgumentError("--trials must be positive");
  // Validate the workload here, before a farm is started for it.
  auto valid = tuner::MakeTaskFromSpec(*task, spec.target(), "validate");
  if (!valid.ok()) return valid.status();
  return spec;
}

}  // namespace

int RunTune(const std::vector<std::string>& positional) {
  auto spec = SpecFromFlags(positional);
  if (!spec.ok()) {
    absl::FPrintF(stderr, "tunefarm tune: %s\n", spec.status().message());
    return kExitUsage;
  }
  if (!absl::GetFlag(FLAGS_seed_from_log).empty() && !ServiceAddress().empty()) {
    // The seeds are picked where the job runs; a job service does not read this machine's files.
    absl::FPrintF(stderr,
                  "tunefarm tune: --seed-from-log needs the job to run here (the "
                  "embedded farm or --tracker), not on --service\n");
    return kExitUsage;
  }
  return RunJob(*spec, "tunefarm tune");
}

}  // namespace tunefarm::cli
