// Flags that several subcommands share (main.cc lists which accept them).
#include <string>

#include "absl/flags/flag.h"

// The compiler target: the device's target for `server` and `tune`, a filter for the
// tuning-log commands (empty: all targets).
ABSL_FLAG(std::string, target, "",
          "Compiler target, e.g. 'llvm -mcpu=znver4' (server/tune default: this host; "
          "tuning-log commands default: all targets).");

// The device key: the key this device serves (`server`), the devices that measure (`tune`,
// `serve`).
ABSL_FLAG(std::string, key, "", "Device key, e.g. cpu-znver4.");

// The device a worker measures on: `server`'s device, or the embedded local farm's workers'
// for `tune`/`serve`. Parsed by rpc_server/device_spec.h.
ABSL_FLAG(std::string, device, "",
          "Device to measure on: cpu or cuda:N (default cpu; for tune/serve without --tracker, "
          "cuda:0 when --target is a cuda target, and also cuda:N,M,... or cuda:all for one "
          "local worker per GPU).");

// Where the serving commands listen: `tracker` (default port 9190) and `serve` (9191).
ABSL_FLAG(std::string, host, "0.0.0.0", "Address to listen on.");
ABSL_FLAG(int, http, -1,
          "serve, tracker: also serve the dashboard, its JSON API and /metrics over HTTP on this "
          "port (0: any free port; -1: off).");
ABSL_FLAG(std::string, http_allowed_hosts, "",
          "Comma-separated host names the dashboard answers to besides IP addresses, localhost "
          "and --http_host (the names people and proxies use); others get 403 (DNS rebinding).");
ABSL_FLAG(std::string, http_host, "127.0.0.1",
          "Address the dashboard listens on. It has no token check: widen it on purpose "
          "(0.0.0.0), or put it behind an authenticating proxy.");
ABSL_FLAG(int, port, -1,
          "Port to listen on (tracker default 9190, serve default 9191; 0: the OS chooses and "
          "the port is printed).");
