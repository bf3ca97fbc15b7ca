// The `tunefarm` binary's subcommand table and the dispatcher that drives it.
//
// Every subcommand is one row of a table (see main.cc). A row lists the Abseil flags the
// subcommand accepts by name, in groups shared between related commands, so `tunefarm SUB
// --help` lists exactly those flags and a flag that belongs to another subcommand is rejected as
// a usage error. Where a flag is defined (which file) does not matter.
#ifndef TUNEFARM_CLI_SUBCOMMAND_H_
#define TUNEFARM_CLI_SUBCOMMAND_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/status.h"
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
  // The flags it accepts: groups of flag names (unused groups are empty). Every name must be a
  // defined flag, and every flag defined in cli/ must be in some row (CheckFlagTable).
  std::array<absl::Span<const absl::string_view>, 8> flags;
  // Runs the subcommand with the positional arguments left after flag parsing and returns an
  // exit code. Null means "not built yet": the dispatcher says so and exits with kExitUsage.
  int (*run)(const std::vector<std::string>& positional);
  // Which issue builds it, for the "not built yet" message.
  absl::string_view tracked_in;
};

// OK when every flag name of `table` is a defined flag and every flag defined in a file under
// cli/ belongs to some subcommand; Internal naming the first mismatch otherwise.
absl::Status CheckFlagTable(absl::Span<const Subcommand> table);

// Parses argv against `table` and runs the chosen subcommand. Returns the process exit code.
// A table that fails CheckFlagTable is a build mistake: exit kExitFailure, saying which flag.
// `tunefarm`, `tunefarm --help` and `tunefarm help` print the table; `tunefarm SUB --help`
// prints that subcommand's flags. Unknown subcommands and flags exit with kExitUsage.
int Dispatch(absl::Span<const Subcommand> table, int argc, char** argv);

// Whether the running subcommand's command line gave flag `name` (as --name, --name=V or
// --noname), for flags whose default depends on the command (tune-model times cold unless
// --flush_cache=false says otherwise). False before Dispatch parsed a command line.
bool FlagOnCommandLine(absl::string_view name);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_SUBCOMMAND_H_
