#include "rpc_server/artifact_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/base/internal/raw_logging.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/content_hash.h"

namespace tunefarm {
namespace {

// A fresh private directory (mkdtemp creates it with mode 0700).
absl::StatusOr<std::string> MakePrivateTempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  if (base == nullptr) base = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat(base != nullptr ? base : "/tmp", "/tunefarm-cache-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a cache directory ", pattern, ": ", std::strerror(errno)));
  }
  return pattern;
}

// `dir` created with mode 0700, or checked to be private if it exists.
absl::Status EnsurePrivateDir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) == 0) return absl::OkStatus();
  if (errno != EEXIST) {
    return absl::InternalError(
        absl::StrCat("cannot create cache dir ", dir, ": ", std::strerror(errno)));
  }
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot stat cache dir ", dir, ": ", std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cache dir ", dir, " is not a directory (or is a symlink); give a private one"));
  }
  if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return absl::FailedPreconditionError(absl::StrCat(
        "cache dir ", dir, " is not private (owner uid ", st.st_uid, ", mode ", mode,
        "): artifacts there could be swapped before they are loaded; use a directory owned by "
        "this user with mode 0700"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ArtifactCache>> ArtifactCache::Create(std::string dir,
                                                                     int max_entries) {
  if (dir.empty()) {
    absl::StatusOr<std::string> made = MakePrivateTempDir();
    if (!made.ok()) return made.status();
    dir = *std::move(made);
  } else if (absl::Status s = EnsurePrivateDir(dir); !s.ok()) {
    return s;
  }
  return std::unique_ptr<ArtifactCache>(new ArtifactCache(std::move(dir), max_entries));
}

ArtifactCache::~ArtifactCache() {
  absl::MutexLock lock(&mu_);
  for (const std::string& hash : present_) unlink(PathOf(hash).c_str());
  rmdir(dir_.c_str());
}

std::string ArtifactCache::PathOf(const std::string& hash) const {
  return absl::StrCat(dir_, "/", hash, ".so");
}

bool ArtifactCache::VerifyLocked(const std::string& hash) {
  std::ifstream in(PathOf(hash), std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  if (in && ContentHash(content.str()) == hash) return true;
  ABSL_RAW_LOG(WARNING, "artifact cache: %s changed on disk since it was stored; fetching it anew",
               PathOf(hash).c_str());
  unlink(PathOf(hash).c_str());
  present_.erase(hash);
  order_.erase(std::remove(order_.begin(), order_.end(), hash), order_.end());
  return false;
}

absl::StatusOr<std::string> ArtifactCache::Find(const std::string& hash) {
  absl::MutexLock lock(&mu_);
  if (!present_.contains(hash) || !VerifyLocked(hash)) {
    return absl::NotFoundError(absl::StrCat("artifact ", hash));
  }
  return PathOf(hash);
}

absl::StatusOr<std::string> ArtifactCache::Put(const std::string& hash,
                                               const std::string& content) {
  for (char c : hash) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError("artifact hash must be hex");
    }
  }
  if (hash.empty() || ContentHash(content) != hash) {
    return absl::DataLossError(absl::StrCat("artifact content does not match hash ", hash));
  }
  absl::MutexLock lock(&mu_);
  std::string path = PathOf(hash);
  if (present_.contains(hash) && VerifyLocked(hash)) return path;
  std::string tmp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot rename ", tmp));
  }
  present_.insert(hash);
  order_.push_back(hash);
  while (static_cast<int>(order_.size()) > max_entries_) {
    unlink(PathOf(order_.front()).c_str());
    present_.erase(order_.front());
    order_.pop_front();
  }
  return path;
}

}  // namespace tunefarm
