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
ABSL_FLAG(std::string, tls_cert, "", "Tracker: PEM certificate chain to serve TLS with.");
ABSL_FLAG(std::string, tls_key, "", "Tracker: PEM private key of --tls_cert.");
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

TlsOptions FarmTls() {
  TlsOptions tls;
  tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
  tls.key_file = absl::GetFlag(FLAGS_tls_key);
  tls.ca_file = absl::GetFlag(FLAGS_tls_ca);
  tls.server_name_override = absl::GetFlag(FLAGS_tls_server_name);
  return tls;
}

namespace {
sigset_t TerminationSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}
}  // namespace

void BlockTerminationSignals() {
  sigset_t set = TerminationSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int WaitForTerminationSignal() {
  sigset_t set = TerminationSignals();
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

int WaitForTerminationSignalFor(int timeout_ms) {
  sigset_t set = TerminationSignals();
  timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
  int sig = sigtimedwait(&set, nullptr, &ts);
  return sig > 0 ? sig : 0;
}

}  // namespace tunefarm::cli
