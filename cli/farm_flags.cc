#include "cli/farm_flags.h"

#include <signal.h>

#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, tracker, "",
          "Server/status: HOST:PORT of the tracker (server: required; status: default "
          "127.0.0.1:9190).");
ABSL_FLAG(std::string, token, "",
          "Shared secret of the farm (else $TUNEFARM_TOKEN). Required by the tracker for every "
          "call when set; never logged.");
ABSL_FLAG(std::string, worker_token, "",
          "Secret of the worker role (else $TUNEFARM_WORKER_TOKEN, else the shared --token): "
          "register, heartbeat, lease, report. Tracker: required for those calls; server: sent.");
ABSL_FLAG(std::string, client_token, "",
          "Secret of the client role (else $TUNEFARM_CLIENT_TOKEN, else the shared --token): "
          "submit, fetch results, cancel, and every job-service call.");
ABSL_FLAG(std::string, tls_cert, "", "Tracker/serve: PEM certificate chain to serve TLS with.");
ABSL_FLAG(std::string, tls_key, "", "Tracker/serve: PEM private key of --tls_cert.");
ABSL_FLAG(std::string, tls_client_ca, "",
          "Tracker/serve: PEM CA that must have signed every peer's client certificate "
          "(mutual TLS; peers without one are refused).");
ABSL_FLAG(std::string, tls_client_cert, "",
          "Server/status/tune: PEM client certificate to present to a mutual-TLS tracker.");
ABSL_FLAG(std::string, tls_client_key, "",
          "Server/status/tune: PEM private key of "
          "--tls_client_cert.");
ABSL_FLAG(std::string, tls_ca, "",
          "Server/status: PEM CA that signed the tracker's certificate (enables TLS).");
ABSL_FLAG(std::string, tls_server_name, "",
          "Server/status: expected name in the tracker's certificate, if not the host dialled.");

namespace tunefarm::cli {

std::string FarmTrackerAddress(const std::string& fallback) {
  std::string address = absl::GetFlag(FLAGS_tracker);
  return address.empty() ? fallback : address;
}

std::string FarmToken() { return TokenFromFlagOrEnv(absl::GetFlag(FLAGS_token)); }

std::string FarmWorkerToken() {
  return RoleToken(TokenFromFlagOrEnv(absl::GetFlag(FLAGS_worker_token), kWorkerTokenEnvVar),
                   FarmToken());
}

std::string FarmClientToken() {
  return RoleToken(TokenFromFlagOrEnv(absl::GetFlag(FLAGS_client_token), kClientTokenEnvVar),
                   FarmToken());
}

bool FarmHasRoleTokens() {
  return !TokenFromFlagOrEnv(absl::GetFlag(FLAGS_worker_token), kWorkerTokenEnvVar).empty() ||
         !TokenFromFlagOrEnv(absl::GetFlag(FLAGS_client_token), kClientTokenEnvVar).empty();
}

TlsOptions FarmTls() {
  TlsOptions tls;
  tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
  tls.key_file = absl::GetFlag(FLAGS_tls_key);
  tls.client_ca_file = absl::GetFlag(FLAGS_tls_client_ca);
  tls.client_cert_file = absl::GetFlag(FLAGS_tls_client_cert);
  tls.client_key_file = absl::GetFlag(FLAGS_tls_client_key);
  tls.ca_file = absl::GetFlag(FLAGS_tls_ca);
  tls.server_name_override = absl::GetFlag(FLAGS_tls_server_name);
  return tls;
}

}  // namespace tunefarm::cli
