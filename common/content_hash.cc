#include "common/content_hash.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"

namespace tunefarm {

std::string ContentHash(absl::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

}  // namespace tunefarm
