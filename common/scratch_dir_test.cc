#include "common/scratch_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <utility>

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

TEST(ScratchDir, PrivateAndRemovedWithItsFiles) {
  std::string path, file;
  {
    absl::StatusOr<ScratchDir> dir = ScratchDir::Make("tunefarm-scratch-test");
    ASSERT_TRUE(dir.ok()) << dir.status();
    path = dir->path();
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    file = dir->File("a.o");
    EXPECT_EQ(file, path + "/a.o");
    std::ofstream(file) << "bytes";
    EXPECT_TRUE(Exists(file));
    // Moving hands the directory over; the moved-from object removes nothing.
    ScratchDir moved = *std::move(dir);
    EXPECT_EQ(moved.path(), path);
    EXPECT_TRUE(Exists(file));
  }
  EXPECT_FALSE(Exists(file));
  EXPECT_FALSE(Exists(path));
}

// A TMPDIR that is not a directory falls back to /tmp.
TEST(ScratchDir, TmpdirNotADirectory_FallsBackToTmp) {
  const char* old = getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  setenv("TMPDIR", "/nonexistent-tunefarm-dir", 1);
  absl::StatusOr<ScratchDir> dir = ScratchDir::Make("tunefarm-scratch-fallback");
  if (old != nullptr) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(dir->path().rfind("/tmp/tunefarm-scratch-fallback-", 0), 0u) << dir->path();
}

}  // namespace
}  // namespace tunefarm
