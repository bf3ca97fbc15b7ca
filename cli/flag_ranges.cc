#include "cli/flag_ranges.h"

#include <cmath>

#include "absl/flags/reflection.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tunefarm::cli {
namespace {

struct FlagRange {
  const char* name;
  double min;
  double max;
};

// Every numeric flag, wherever it is defined. A flag not linked into the binary is skipped.
constexpr FlagRange kFlagRanges[] = {
    // Tuning jobs (tune, serve).
    {"trials", 1, 1e6},
    {"batch", 1, 1024},
    {"early_stopping", 0, 1e6},
    {"top_k", 0, 64},
    {"top_k_rounds", 1, 10},
    {"workers", 0, 1024},
    {"threads_per_worker", 1, 1024},
    {"build_threads", 0, 1024},
    {"repeat", 1, 1000},
    {"min_repeat_ms", 0, 60000},
    // Listening servers.
    {"port", -1, 65535},
    {"http", -1, 65535},
    // Tracker.
    {"max_queue", 1, 1e7},
    {"heartbeat_timeout_s", 0.1, 3600},
    {"noise_threshold", 0, 10},
    {"max_message_mb", 1, 1024},
    {"max_model_mb", 1, 1000},
    {"drain_timeout_s", 0, 86400},
    // Device server.
    {"memory_limit_mb", 64, 1 << 20},
    {"calibration_period_s", 0, 86400},
    // Tuning-log queries.
    {"k", 1, 10000},
    {"job", 0, 9e15},
};

}  // namespace

absl::Status CheckFlagRanges() {
  for (const FlagRange& range : kFlagRanges) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(range.name);
    if (flag == nullptr) continue;
    const std::string text = flag->CurrentValue();
    double value = 0;
    if (!absl::SimpleAtod(text, &value) || !std::isfinite(value) || value < range.min ||
        value > range.max) {
      return absl::InvalidArgumentError(absl::StrCat("--", range.name, " must be in [", range.min,
                                                     ", ", range.max, "], got ", text));
    }
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::cli
