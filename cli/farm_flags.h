// Flags shared by `tunefarm tracker`, `server`, `status`, `tune` and `serve` (defined once in
// farm_flags.cc): the farm's tokens (shared, or one per role) and TLS files.
#ifndef TUNEFARM_CLI_FARM_FLAGS_H_
#define TUNEFARM_CLI_FARM_FLAGS_H_

#include <string>

#include "absl/time/time.h"
#include "common/termination_signals.h"
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

// SIGTERM/SIGINT: common/termination_signals.h (one home for the CLI and the device server).
using ::tunefarm::BlockTerminationSignals;
using ::tunefarm::WaitForTerminationSignal;
using ::tunefarm::WaitForTerminationSignalFor;

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_FARM_FLAGS_H_
