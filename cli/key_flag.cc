// `--key`, the device key, shared by `server` (the key this device serves) and `tune`/`serve`
// (the devices that measure).
#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, key, "", "Device key, e.g. cpu-znver4.");
