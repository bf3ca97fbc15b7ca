// Entry points of the `tunefarm` subcommands, one source file each (cmd_<name>.cc).
// Each takes the positional arguments left after flag parsing and returns an exit code.
#ifndef TUNEFARM_CLI_COMMANDS_H_
#define TUNEFARM_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace tunefarm::cli {

// `tunefarm version`: prints the tunefarm version and the versions of the linked libraries.
int RunVersion(const std::vector<std::string>& positional);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_COMMANDS_H_
