// The worker's on-disk cache of artifacts, one file per content hash, so each artifact
// crosses the network once per worker and the sandbox dlopens it by path.
#ifndef TUNEFARM_RPC_SERVER_ARTIFACT_CACHE_H_
#define TUNEFARM_RPC_SERVER_ARTIFACT_CACHE_H_

#include <deque>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace tunefarm {

class ArtifactCache {
 public:
  // Files live in `dir` (created if missing); at most `max_entries` are kept (oldest evicted).
  static absl::StatusOr<std::unique_ptr<ArtifactCache>> Create(std::string dir, int max_entries);
  // Removes the directory and its files.
  ~ArtifactCache();

  // Path of a cached artifact, or NotFound.
  absl::StatusOr<std::string> Find(const std::string& hash);

  // Stores `content` under `hash` after checking that it is the content's SHA-256.
  // Errors: DataLoss (hash mismatch), Internal (write failed), InvalidArgument (bad hash).
  absl::StatusOr<std::string> Put(const std::string& hash, const std::string& content);

 private:
  ArtifactCache(std::string dir, int max_entries)
      : dir_(std::move(dir)), max_entries_(max_entries) {}
  std::string PathOf(const std::string& hash) const;

  const std::string dir_;
  const int max_entries_;
  absl::Mutex mu_;
  absl::flat_hash_set<std::string> present_ ABSL_GUARDED_BY(mu_);
  std::deque<std::string> order_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_ARTIFACT_CACHE_H_
