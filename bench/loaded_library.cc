#include "bench/loaded_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace tunefarm::bench {

absl::StatusOr<LoadedLibrary> LoadedLibrary::Load(const std::string& bytes) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/tunefarm-bench-XXXXXX.so");
  const int fd = mkstemps(path.data(), 3);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create ", path));
  const bool written = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  close(fd);
  LoadedLibrary lib;
  lib.handle_ = written ? dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  unlink(path.c_str());
  if (lib.handle_ == nullptr) {
    return absl::InternalError(written ? absl::StrCat("dlopen: ", dlerror())
                                       : absl::StrCat("cannot write ", path));
  }
  return lib;
}

absl::StatusOr<TfKernelFn> LoadedLibrary::Kernel(const std::string& name) const {
  void* sym = dlsym(handle_, name.c_str());
  if (sym == nullptr) return absl::NotFoundError(absl::StrCat("no symbol '", name, "'"));
  return reinterpret_cast<TfKernelFn>(sym);
}

}  // namespace tunefarm::bench
