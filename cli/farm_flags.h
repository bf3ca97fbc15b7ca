// Flags shared by `tunefarm tracker`, `server` and `status` (defined once in farm_flags.cc):
// the shared secret token and TLS files.
#ifndef TUNEFARM_CLI_FARM_FLAGS_H_
#define TUNEFARM_CLI_FARM_FLAGS_H_

#include <string>

#include "absl/time/time.h"
#include "tracker/tls_options.h"

namespace tunefarm::cli {

// --tracker, else `fallback`.
std::string FarmTrackerAddress(const std::string& fallback);

// --token, else $TUNEFARM_TOKEN. Never printed.
std::string FarmToken();

// --tls_cert, --tls_key, --tls_ca, --tls_server_name.
TlsOptions FarmTls();

// Blocks SIGTERM and SIGINT in the calling thread and every thread it creates later; call
// before starting servers. WaitForTerminationSignal() then returns the signal received.
void BlockTerminationSignals();
int WaitForTerminationSignal();
// Waits for SIGTERM/SIGINT up to `timeout_ms`; returns the signal or 0 on timeout.
int WaitForTerminationSignalFor(int timeout_ms);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_FARM_FLAGS_H_
