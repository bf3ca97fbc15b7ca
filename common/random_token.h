// Unguessable secrets: session keys of worker registrations, the embedded farm's token.
#ifndef TUNEFARM_COMMON_RANDOM_TOKEN_H_
#define TUNEFARM_COMMON_RANDOM_TOKEN_H_

#include <string>

namespace tunefarm {

// 32 lower-case hex characters (128 bits) from OpenSSL's CSPRNG.
std::string RandomToken();

// Compares two secrets in time that depends only on their lengths, not on a matching prefix.
bool SecretEquals(const std::string& a, const std::string& b);

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_RANDOM_TOKEN_H_
