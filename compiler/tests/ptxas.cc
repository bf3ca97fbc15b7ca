#include "compiler/tests/ptxas.h"

#include <glob.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tunefarm::testing {
namespace {

bool Executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

}  // namespace

absl::StatusOr<std::string> FindPtxas() {
  std::vector<std::string> candidates;
  if (const char* p = std::getenv("PTXAS")) candidates.push_back(p);
  if (const char* home = std::getenv("CUDA_HOME"))
    candidates.push_back(absl::StrCat(home, "/bin/ptxas"));
  if (const char* path = std::getenv("PATH")) {
    for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
      candidates.push_back(absl::StrCat(dir, "/ptxas"));
    }
  }
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  glob_t g{};
  if (glob("/usr/local/cuda-*/bin/ptxas", 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) candidates.push_back(g.gl_pathv[i]);
  }
  globfree(&g);
  for (const std::string& c : candidates) {
    if (Executable(c)) return c;
  }
  return absl::NotFoundError(
      "no ptxas (looked at $PTXAS, $CUDA_HOME/bin, PATH, /usr/local/cuda*/bin); install the CUDA "
      "toolkit to check generated PTX");
}

absl::Status AssemblePtx(const std::string& ptxas, const std::string& ptx,
                         const std::string& arch) {
  char dir_template[] = "/tmp/tf_ptxas_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) return absl::InternalError("mkdtemp failed");
  std::string in = absl::StrCat(dir, "/kernel.ptx");
  std::string out = absl::StrCat(dir, "/kernel.cubin");
  std::string log = absl::StrCat(dir, "/log.txt");
  std::ofstream(in) << ptx;
  std::string cmd =
      absl::StrCat("'", ptxas, "' -arch=", arch, " -o '", out, "' '", in, "' > '", log, "' 2>&1");
  int rc = std::system(cmd.c_str());
  std::stringstream text;
  text << std::ifstream(log).rdbuf();
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(log.c_str());
  rmdir(dir);
  if (rc != 0) {
    return absl::InternalError(
        absl::StrCat("ptxas -arch=", arch, " failed (status ", rc, "): ", text.str()));
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::testing
