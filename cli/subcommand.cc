#include "cli/subcommand.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/flags/commandlineflag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cli/flag_ranges.h"

namespace tunefarm::cli {
namespace {

// Names of the flags the command line gave (FlagOnCommandLine): one command line per process.
std::set<std::string>& GivenFlags() {
  static auto* given = new std::set<std::string>();
  return *given;
}

// Flags that belong to the subcommand, by name.
std::vector<const absl::CommandLineFlag*> FlagsOf(const Subcommand& cmd) {
  std::vector<const absl::CommandLineFlag*> out;
  for (absl::Span<const absl::string_view> group : cmd.flags) {
    for (absl::string_view name : group) {
      if (const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name)) out.push_back(flag);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void PrintTopUsage(absl::Span<const Subcommand> table, FILE* out) {
  absl::FPrintF(out,
                "tunefarm: a distributed auto-tuner for tensor programs.\n\n"
                "Usage: tunefarm <command> [flags] [args]\n\nCommands:\n");
  for (const Subcommand& cmd : table) {
    absl::FPrintF(out, "  %-12s %s%s\n", cmd.name, cmd.summary,
                  cmd.run == nullptr ? " (not built yet)" : "");
  }
  absl::FPrintF(out, "\nRun `tunefarm <command> --help` for the flags of one command.\n");
}

void PrintCommandUsage(const Subcommand& cmd, FILE* out) {
  absl::FPrintF(out, "Usage: tunefarm %s [flags]%s%s\n\n%s\n", cmd.name,
                cmd.positional.empty() ? "" : " ", cmd.positional, cmd.summary);
  std::vector<const absl::CommandLineFlag*> flags = FlagsOf(cmd);
  if (flags.empty()) return;
  absl::FPrintF(out, "\nFlags:\n");
  for (const auto* flag : flags) {
    absl::FPrintF(out, "  --%s  %s (default: %s)\n", flag->Name(), flag->Help(),
                  flag->DefaultValue().empty() ? "\"\"" : flag->DefaultValue());
  }
}

const Subcommand* Find(absl::Span<const Subcommand> table, absl::string_view name) {
  for (const Subcommand& cmd : table) {
    if (cmd.name == name) return &cmd;
  }
  return nullptr;
}

bool IsHelp(absl::string_view arg) {
  return arg == "--help" || arg == "-help" || arg == "-h" || arg == "help";
}

// Returns the flag name of `arg` if it looks like a flag ("--name", "-name=v", "--noname").
absl::string_view FlagName(absl::string_view arg) {
  if (!absl::ConsumePrefix(&arg, "--")) absl::ConsumePrefix(&arg, "-");
  return arg.substr(0, arg.find('='));
}

}  // namespace

absl::Status CheckFlagTable(absl::Span<const Subcommand> table) {
  std::set<std::string> claimed;
  for (const Subcommand& cmd : table) {
    for (absl::Span<const absl::string_view> group : cmd.flags) {
      for (absl::string_view name : group) {
        if (absl::FindCommandLineFlag(name) == nullptr) {
          return absl::InternalError(absl::StrCat("command '", cmd.name, "' lists flag --", name,
                                                  ", which is not defined"));
        }
        claimed.insert(std::string(name));
      }
    }
  }
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    const std::string file = flag->Filename();
    const bool ours = absl::StartsWith(file, "cli/") || absl::StrContains(file, "/cli/");
    if (ours && !claimed.count(std::string(name))) {
      return absl::InternalError(
          absl::StrCat("flag --", name, " (", file, ") belongs to no command"));
    }
  }
  return absl::OkStatus();
}

int Dispatch(absl::Span<const Subcommand> table, int argc, char** argv) {
  if (absl::Status s = CheckFlagTable(table); !s.ok()) {
    absl::FPrintF(stderr, "tunefarm: internal error in the command table: %s\n", s.message());
    return kExitFailure;
  }
  if (argc < 2 || IsHelp(argv[1])) {
    PrintTopUsage(table, argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : kExitOk;
  }
  const Subcommand* cmd = Find(table, argv[1]);
  if (cmd == nullptr) {
    absl::FPrintF(stderr, "tunefarm: unknown command '%s'\n\n", argv[1]);
    PrintTopUsage(table, stderr);
    return kExitUsage;
  }

  for (int i = 2; i < argc && absl::string_view(argv[i]) != "--"; ++i) {
    if (IsHelp(argv[i])) {
      PrintCommandUsage(*cmd, stdout);
      return kExitOk;
    }
  }
  if (cmd->run == nullptr) {
    absl::FPrintF(stderr, "tunefarm %s: not built yet (tracked in %s).\n", cmd->name,
                  cmd->tracked_in);
    return kExitUsage;
  }

  // Check every flag against the subcommand's own before Abseil sees them, so a stray flag is
  // a usage error (exit 2) that names the subcommand, not a generic parse failure.
  std::vector<const absl::CommandLineFlag*> own = FlagsOf(*cmd);
  // Hyphens in a flag's name read as underscores: --seed-from-log is --seed_from_log.
  std::vector<std::string> args(argv + 2, argv + argc);
  for (std::string& a : args) {
    if (a == "--") break;
    if (a.size() < 3 || a[0] != '-' || a[1] != '-') continue;
    const size_t end = std::min(a.find('='), a.size());
    std::replace(a.begin() + 2, a.begin() + static_cast<std::ptrdiff_t>(end), '-', '_');
  }
  for (int i = 2; i < argc; ++i) {
    absl::string_view arg = args[i - 2];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    absl::string_view name = FlagName(arg);
    auto known = [&](absl::string_view n) {
      return std::any_of(own.begin(), own.end(), [&](const auto* f) { return f->Name() == n; });
    };
    bool negated_bool = absl::StartsWith(name, "no") && known(name.substr(2));
    if (!known(name) && !negated_bool) {
      absl::FPrintF(stderr, "tunefarm %s: unknown flag '%s'\n\n", cmd->name, arg);
      PrintCommandUsage(*cmd, stderr);
      return kExitUsage;
    }
    GivenFlags().insert(std::string(known(name) ? name : name.substr(2)));
  }

  // Abseil parses the flags; argv[0] becomes "tunefarm SUB" for its messages.
  std::string program = absl::StrCat(argv[0], " ", cmd->name);
  std::vector<char*> sub_argv;
  sub_argv.push_back(program.data());
  for (std::string& a : args) sub_argv.push_back(a.data());
  std::vector<char*> rest =
      absl::ParseCommandLine(static_cast<int>(sub_argv.size()), sub_argv.data());
  std::vector<std::string> positional(rest.begin() + 1, rest.end());
  if (absl::Status ranges = CheckFlagRanges(); !ranges.ok()) {
    absl::FPrintF(stderr, "tunefarm %s: %s\n", cmd->name, ranges.message());
    return kExitUsage;
  }
  return cmd->run(positional);
}

bool FlagOnCommandLine(absl::string_view name) { return GivenFlags().count(std::string(name)) > 0; }

}  // namespace tunefarm::cli
