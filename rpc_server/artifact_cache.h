// The worker's on-disk cache of artifacts, one file per content hash, so each artifact
// crosses the network once per worker and the sandbox dlopens it by path.
//
// The cache trusts neither its directory nor its files: the directory must be private (owned
// by this user, mode 0700, not a symlink), and every file is hashed again each time it is
// handed out, so a file changed on disk since it was stored is dropped and fetched anew rather
// than loaded. (Kernels themselves cannot write files: see sandbox_confinement.h.)
#ifndef TUNEFARM_RPC_SERVER_ARTIFACT_CACHE_H_
#define TUNEFARM_RPC_SERVER_ARTIFACT_CACHE_H_

#include <deque>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace tunefarm {

class ArtifactCache {
 public:
  // Files live in `dir`, created with mode 0700 if missing; empty `dir` means a fresh private
  // directory under $TEST_TMPDIR, $TMPDIR or /tmp. At most `max_entries` are kept (oldest
  // evicted). Errors: FailedPrecondition (`dir` exists but is a symlink, not a directory, owned
  // by another user, or open to group or others), Internal (cannot create it).
  static absl::StatusOr<std::unique_ptr<ArtifactCache>> Create(std::string dir, int max_entries);
  // Removes the files it stored and the directory (if then empty).
  ~ArtifactCache();

  // Path of a cached artifact whose file still hashes to `hash`. Errors: NotFound (never
  // stored, evicted, or changed on disk since: such a file is deleted).
  absl::StatusOr<std::string> Find(const std::string& hash);

  // Stores `content` under `hash` after checking that it is the content's SHA-256.
  // Errors: DataLoss (hash mismatch), Internal (write failed), InvalidArgument (bad hash).
  absl::StatusOr<std::string> Put(const std::string& hash, const std::string& content);

  // The directory.
  const std::string& dir() const { return dir_; }

 private:
  ArtifactCache(std::string dir, int max_entries)
      : dir_(std::move(dir)), max_entries_(max_entries) {}
  std::string PathOf(const std::string& hash) const;
  // Whether the stored file of `hash` still hashes to it; drops it if not.
  bool VerifyLocked(const std::string& hash) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string dir_;
  const int max_entries_;
  absl::Mutex mu_;
  absl::flat_hash_set<std::string> present_ ABSL_GUARDED_BY(mu_);
  std::deque<std::string> order_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_ARTIFACT_CACHE_H_
