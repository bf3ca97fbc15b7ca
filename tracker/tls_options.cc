#include "tracker/tls_options.h"

#include <cstdlib>

namespace tunefarm {

std::string TokenFromFlagOrEnv(absl::string_view flag_value) {
  if (!flag_value.empty()) return std::string(flag_value);
  const char* env = std::getenv(kTokenEnvVar);
  return env == nullptr ? "" : env;
}

}  // namespace tunefarm
