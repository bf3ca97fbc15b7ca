#include "common/aligned_allocator.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

// The VmFlags line of the mapping of /proc/self/smaps that holds `p` ("" if none does).
std::string VmFlagsOf(const void* p) {
  const auto addr = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    // A mapping's header: "start-end perms offset dev inode path".
    const std::string range = line.substr(0, line.find(' '));
    const size_t dash = range.find('-');
    uint64_t start = 0, end = 0;
    if (dash != std::string::npos && absl::SimpleHexAtoi(range.substr(0, dash), &start) &&
        absl::SimpleHexAtoi(range.substr(dash + 1), &end)) {
      inside = start <= addr && addr < end;
      continue;
    }
    if (inside && absl::StartsWith(line, "VmFlags:")) return line;
  }
  return "";
}

bool AdvisedHuge(const void* p) {
  for (absl::string_view flag : absl::StrSplit(VmFlagsOf(p), ' ')) {
    if (flag == "hg") return true;
  }
  return false;
}

TEST(AllocateTensorStorageTest, SmallBlocksOn64ByteBoundaries) {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{100}, size_t{4096}, kHugePageBytes - 1}) {
    void* p = AllocateTensorStorage(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kTensorAlignment, 0u) << bytes;
    std::memset(p, 1, bytes);  // Writable over its whole size (asan checks the bound).
    std::free(p);
  }
}

TEST(AllocateTensorStorageTest, LargeBlocksOnHugePageBoundariesAdvisedHuge) {
  const bool thp = std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
  for (size_t bytes : {kHugePageBytes, kHugePageBytes + 4, 9 * kHugePageBytes / 2}) {
    void* p = AllocateTensorStorage(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePageBytes, 0u) << bytes;
    std::memset(p, 1, bytes);
    // MADV_HUGEPAGE marks the mapping ("hg" in VmFlags) whether or not huge pages are free.
    if (thp) {
      EXPECT_TRUE(AdvisedHuge(p)) << bytes << ": " << VmFlagsOf(p);
      EXPECT_TRUE(AdvisedHuge(static_cast<char*>(p) + bytes - 1)) << bytes;
    }
    std::free(p);
  }
}

TEST(AllocateTensorStorageTest, SizesThatWrapWhenRoundedFail) {
  EXPECT_EQ(AllocateTensorStorage(SIZE_MAX), nullptr);
  EXPECT_EQ(AllocateTensorStorage(SIZE_MAX - kHugePageBytes + 2), nullptr);
}

TEST(AlignedVectorTest, StorageFromAllocateTensorStorage) {
  AlignedVector<float> small(3);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % kTensorAlignment, 0u);
  AlignedVector<float> large(kHugePageBytes / sizeof(float));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.data()) % kHugePageBytes, 0u);
}

}  // namespace
}  // namespace tunefarm
