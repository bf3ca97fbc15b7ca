#include "rpc_server/artifact_cache.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tracker/content_hash.h"

namespace tunefarm {

absl::StatusOr<std::unique_ptr<ArtifactCache>> ArtifactCache::Create(std::string dir,
                                                                     int max_entries) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::InternalError(
        absl::StrCat("cannot create cache dir ", dir, ": ", std::strerror(errno)));
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

absl::StatusOr<std::string> ArtifactCache::Find(const std::string& hash) {
  absl::MutexLock lock(&mu_);
  if (!present_.contains(hash)) return absl::NotFoundError(absl::StrCat("artifact ", hash));
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
  if (present_.contains(hash)) return path;
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
