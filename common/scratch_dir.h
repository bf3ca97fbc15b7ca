// A private scratch directory: made fresh (mkdtemp, mode 0700) under $TMPDIR or /tmp, removed
// with everything in it when the object goes, whatever the outcome of the work in it.
#ifndef TUNEFARM_COMMON_SCRATCH_DIR_H_
#define TUNEFARM_COMMON_SCRATCH_DIR_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tunefarm {

class ScratchDir {
 public:
  // A new directory named `prefix`-XXXXXX. Internal: it could not be made (the message says
  // where, and to check TMPDIR and free space).
  static absl::StatusOr<ScratchDir> Make(absl::string_view prefix);

  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&& other) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  const std::string& path() const { return path_; }
  // The path of `name` in the directory (nothing is created).
  std::string File(absl::string_view name) const;

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  void Remove();
  std::string path_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_SCRATCH_DIR_H_
