// The artifact cache hands out only files that still hash to their name, from a private
// directory.
#include "rpc_server/artifact_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "common/content_hash.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

std::string TmpPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

TEST(ArtifactCache, EmptyDir_FreshPrivateDirectory) {
  auto cache = ArtifactCache::Create("", 8);
  ASSERT_TRUE(cache.ok()) << cache.status();
  struct stat st;
  ASSERT_EQ(stat((*cache)->dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(ArtifactCache, PutThenFind_SamePath) {
  auto cache = ArtifactCache::Create("", 8);
  ASSERT_TRUE(cache.ok());
  const std::string content = "kernel bytes";
  auto put = (*cache)->Put(ContentHash(content), content);
  ASSERT_TRUE(put.ok()) << put.status();
  auto found = (*cache)->Find(ContentHash(content));
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, *put);
}

TEST(ArtifactCache, FileChangedOnDisk_NotFoundAndDropped) {
  auto cache = ArtifactCache::Create("", 8);
  ASSERT_TRUE(cache.ok());
  const std::string content = "the real kernel";
  const std::string hash = ContentHash(content);
  auto path = (*cache)->Put(hash, content);
  ASSERT_TRUE(path.ok());
  std::ofstream(*path, std::ios::binary | std::ios::trunc) << "a swapped kernel";
  EXPECT_EQ((*cache)->Find(hash).status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(access(path->c_str(), F_OK), 0);  // deleted, to be fetched anew
  // Storing the genuine content again works.
  EXPECT_TRUE((*cache)->Put(hash, content).ok());
  EXPECT_TRUE((*cache)->Find(hash).ok());
}

TEST(ArtifactCache, WrongHash_DataLoss) {
  auto cache = ArtifactCache::Create("", 8);
  ASSERT_TRUE(cache.ok());
  EXPECT_EQ((*cache)->Put(ContentHash("a"), "b").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ((*cache)->Put("../../etc/passwd", "b").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ArtifactCache, GroupReadableDir_FailedPrecondition) {
  const std::string dir = TmpPath("open_dir");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  chmod(dir.c_str(), 0755);
  auto cache = ArtifactCache::Create(dir, 8);
  EXPECT_EQ(cache.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(cache.status().message().find("0755"), std::string::npos) << cache.status();
}

TEST(ArtifactCache, SymlinkDir_FailedPrecondition) {
  const std::string target = TmpPath("target_dir");
  const std::string link = TmpPath("link_dir");
  ASSERT_EQ(mkdir(target.c_str(), 0700), 0);
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_EQ(ArtifactCache::Create(link, 8).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ArtifactCache, ExistingPrivateDir_Accepted) {
  const std::string dir = TmpPath("private_dir");
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  EXPECT_TRUE(ArtifactCache::Create(dir, 8).ok());
}

}  // namespace
}  // namespace tunefarm
