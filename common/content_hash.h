// Content hashes of artifacts: lower-case hex SHA-256. Artifacts travel once per hash.
#ifndef TUNEFARM_COMMON_CONTENT_HASH_H_
#define TUNEFARM_COMMON_CONTENT_HASH_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tunefarm {

// Returns the 64-character lower-case hex SHA-256 of `bytes`.
std::string ContentHash(absl::string_view bytes);

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_CONTENT_HASH_H_
