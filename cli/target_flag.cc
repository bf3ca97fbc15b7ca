// `--target`, shared by every command that names a compiler target: the device's target for
// `server` and `tune`, a filter for the tuning-log commands (empty: all targets).
#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, target, "",
          "Compiler target, e.g. 'llvm -mcpu=znver4' (server/tune default: this host; "
          "tuning-log commands default: all targets).");
