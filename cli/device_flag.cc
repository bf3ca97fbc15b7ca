// `--device`, shared by `server` (the device this worker measures on) and `tune`/`serve` (the
// device of the embedded local farm's workers). Parsed by rpc_server/device_spec.h.
#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, device, "",
          "Device to measure on: cpu or cuda:N (default cpu; for tune/serve without --tracker, "
          "cuda:0 when --target is a cuda target, and also cuda:N,M,... or cuda:all for one "
          "local worker per GPU).");
