// Record filters shared by best, export-log and export.
#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, workload, "",
          "TEMPLATE (all shapes) or TEMPLATE:ARGS, e.g. 'dense:[1024,1024,1024,\"float32\"]'.");
ABSL_FLAG(std::string, device_key, "", "Device key, e.g. cpu-znver4 (default: all devices).");
