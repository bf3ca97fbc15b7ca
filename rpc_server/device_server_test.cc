#include "rpc_server/device_server.h"

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

TEST(DefaultCpuTarget, X86_HostTarget) {
  EXPECT_EQ(DefaultCpuTarget("x86_64"), "llvm");
  EXPECT_EQ(DefaultCpuTarget(""), "llvm");
}

TEST(DefaultCpuTarget, Aarch64_Gnu) {
  EXPECT_EQ(DefaultCpuTarget("aarch64"), "llvm -mtriple=aarch64-linux-gnu");
}

TEST(DefaultCpuTarget, Arm32_HardFloatGnueabihf) {
  // LLVM's armv7l-linux-gnu is soft-float; Debian's armhf boards need gnueabihf.
  EXPECT_EQ(DefaultCpuTarget("armv7l"), "llvm -mtriple=armv7l-linux-gnueabihf");
  EXPECT_EQ(DefaultCpuTarget("armv6l"), "llvm -mtriple=armv6l-linux-gnueabihf");
  EXPECT_EQ(DefaultCpuTarget("armv8l"), "llvm -mtriple=armv8l-linux-gnueabihf");
}

TEST(ParseLabels, PairsAndBareKeys) {
  auto labels = ParseLabels("a=1,,b");
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_EQ(labels[0], (std::pair<std::string, std::string>("a", "1")));
  EXPECT_EQ(labels[1], (std::pair<std::string, std::string>("b", "")));
}

}  // namespace
}  // namespace tunefarm
