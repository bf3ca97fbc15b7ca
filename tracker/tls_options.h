// Transport security and authentication settings, free of gRPC types.
#ifndef TUNEFARM_TRACKER_TLS_OPTIONS_H_
#define TUNEFARM_TRACKER_TLS_OPTIONS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tunefarm {

// PEM files for TLS. All empty means plaintext (fine on a private network with a token).
struct TlsOptions {
  // Server side: the certificate chain and private key the tracker presents.
  std::string cert_file;
  std::string key_file;
  // Client side: the CA that signed the tracker's certificate.
  std::string ca_file;
  // Client side: expected server name when it differs from the dialled host.
  std::string server_name_override;
};

// Environment variable holding the shared secret token when no --token flag is given.
inline constexpr char kTokenEnvVar[] = "TUNEFARM_TOKEN";

// Returns `flag_value` when set, else the value of $TUNEFARM_TOKEN, else "". The token is
// never logged.
std::string TokenFromFlagOrEnv(absl::string_view flag_value);

}  // namespace tunefarm

#endif  // TUNEFARM_TRACKER_TLS_OPTIONS_H_
