// The `tunefarm` binary's subcommand table and the dispatcher that drives it.
//
// Every subcommand is one row of a table (see main.cc). A row names the source file that
// defines the subcommand's Abseil flags, so `tunefarm SUB --help` lists exactly those flags
// and a flag that belongs to another subcommand is rejected as a usage error.
#ifndef TUNEFARM_CLI_SUBCOMMAND_H_
#define TUNEFARM_CLI_SUBCOMMAND_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tunefarm::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
// A runtime failure: the command was well formed but could not complete.
inline constexpr int kExitFailure = 1;
// A usage error: unknown subcommand or flag, missing argument, or not built yet.
inline constexpr int kExitUsage = 2;

// One subcommand of `tunefarm`.
struct Subcommand {
  // What the user types: `tunefarm <name> ...`.
  absl::string_view name;
  // One line for the top-level `--help` table.
  absl::string_view summary;
  // Positional-argument synopsis shown in `tunefarm <name> --help`, e.g. "OPERATOR".
  absl::string_view positional;
  // Basename of the .cc file that defines this subcommand's ABSL_FLAGs ("" for none); several
  // comma-separated basenames when it shares flags, e.g. "cmd_best.cc,log_flags.cc".
  absl::string_view flags_file;
  // Runs the subcommand with the positional arguments left after flag parsing and returns an
  // exit code. Null means "not built yet": the dispatcher says so and exits with kExitUsage.
  int (*run)(const std::vector<std::string>& positional);
  // Which issue builds it, for the "not built yet" message.
  absl::string_view tracked_in;
};

// Parses argv against `table` and runs the chosen subcommand. Returns the process exit code.
// `tunefarm`, `tunefarm --help` and `tunefarm help` print the table; `tunefarm SUB --help`
// prints that subcommand's flags. Unknown subcommands and flags exit with kExitUsage.
int Dispatch(absl::Span<const Subcommand> table, int argc, char** argv);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_SUBCOMMAND_H_
