// The range of every numeric flag of `tunefarm`, checked once after parsing, before any
// subcommand runs: a value outside it is a usage error that names the flag and its range,
// never a negative sleep, an overflowed shift or a job that cannot start.
#ifndef TUNEFARM_CLI_FLAG_RANGES_H_
#define TUNEFARM_CLI_FLAG_RANGES_H_

#include "absl/status/status.h"

namespace tunefarm::cli {

// InvalidArgument naming the first numeric flag outside its range.
absl::Status CheckFlagRanges();

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_FLAG_RANGES_H_
