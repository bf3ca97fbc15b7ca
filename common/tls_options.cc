#include "common/tls_options.h"

#include <cstdlib>

namespace tunefarm {

std::string TokenFromFlagOrEnv(absl::string_view flag_value, const char* env_var) {
  if (!flag_value.empty()) return std::string(flag_value);
  const char* env = std::getenv(env_var);
  return env == nullptr ? "" : env;
}

std::string RoleToken(absl::string_view role_token, absl::string_view token) {
  return std::string(role_token.empty() ? token : role_token);
}

}  // namespace tunefarm
