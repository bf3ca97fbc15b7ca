#include "common/random_token.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <cstdlib>

#include "absl/base/internal/raw_logging.h"
#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"

namespace tunefarm {

std::string RandomToken() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
    // No entropy source: a predictable secret would be worse than stopping.
    ABSL_RAW_LOG(FATAL, "RAND_bytes failed: the system has no usable random source");
  }
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes)));
}

bool SecretEquals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace tunefarm
