// Flags shared by `tunefarm tracker`, `server`, `status`, `tune` and `serve` (defined once in
// farm_flags.cc): the farm's tokens (shared, or one per role) and TLS files.
#ifndef TUNEFARM_CLI_FARM_FLAGS_H_
#define TUNEFARM_CLI_FARM_FLAGS_H_

#include <string>

#include "absl/time/time.h"
#include "common/tls_options.h"

namespace tunefarm::cli {

// --tracker, else `fallback`.
std::string FarmTrackerAddress(const std::string& fallback);

// --token, else $TUNEFARM_TOKEN: the farm's shared secret. Never printed.
std::string FarmToken();

// The worker role's token (--worker_token, else $TUNEFARM_WORKER_TOKEN, else FarmToken()) and
// the client role's (--client_token, else $TUNEFARM_CLIENT_TOKEN, else FarmToken()).
std::string FarmWorkerToken();
std::string FarmClientToken();
// Whether a role token is given, by flag or environment (for the tracker's start-up line).
bool FarmHasRoleTokens();

// --tls_cert, --tls_key, --tls_client_ca, --tls_ca, --tls_server_name, --tls_client_cert,
// --tls_client_key.
TlsOptions FarmTls();

// Blocks SIGTERM and SIGINT in the calling thread and every thread it creates later; call
// before starting servers. WaitForTerminationSignal() then returns the signal received.
void BlockTerminationSignals();
int WaitForTerminationSignal();
// Waits for SIGTERM/SIGINT up to `timeout_ms`; returns the signal or 0 on timeout.
int WaitForTerminationSignalFor(int timeout_ms);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_FARM_FLAGS_H_
