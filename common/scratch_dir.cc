#include "common/scratch_dir.h"

#include <stdlib.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace tunefarm {

absl::StatusOr<ScratchDir> ScratchDir::Make(absl::string_view prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string path = (base / absl::StrCat(prefix, "-XXXXXX")).string();
  if (mkdtemp(path.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a temporary directory in ",
                                            base.string(), " (check TMPDIR and free space)"));
  }
  return ScratchDir(std::move(path));
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

ScratchDir::~ScratchDir() { Remove(); }

void ScratchDir::Remove() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

std::string ScratchDir::File(absl::string_view name) const {
  return absl::StrCat(path_, "/", name);
}

}  // namespace tunefarm
