// Transport security and authentication settings, free of gRPC types.
#ifndef TUNEFARM_COMMON_TLS_OPTIONS_H_
#define TUNEFARM_COMMON_TLS_OPTIONS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tunefarm {

// PEM files for TLS. All empty means plaintext (fine on a private network with tokens).
struct TlsOptions {
  // Server side: the certificate chain and private key the tracker presents.
  std::string cert_file;
  std::string key_file;
  // Server side: when set, every peer must present a certificate signed by this CA (mutual
  // TLS); a connection without one is refused during the handshake.
  std::string client_ca_file;
  // Client side: the CA that signed the tracker's certificate.
  std::string ca_file;
  // Client side: expected server name when it differs from the dialled host.
  std::string server_name_override;
  // Client side: the certificate and key this peer presents to a server that asks for one.
  std::string client_cert_file;
  std::string client_key_file;
};

// Environment variables holding the secrets when no flag gives them: the farm's shared token,
// and the tokens of the two roles, which override it when set.
inline constexpr char kTokenEnvVar[] = "TUNEFARM_TOKEN";
inline constexpr char kWorkerTokenEnvVar[] = "TUNEFARM_WORKER_TOKEN";
inline constexpr char kClientTokenEnvVar[] = "TUNEFARM_CLIENT_TOKEN";

// Returns `flag_value` when set, else the value of `env_var`, else "". Tokens are never
// logged.
std::string TokenFromFlagOrEnv(absl::string_view flag_value, const char* env_var = kTokenEnvVar);

// A role's token: `role_token` when set, else the shared `token`.
std::string RoleToken(absl::string_view role_token, absl::string_view token);

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_TLS_OPTIONS_H_
