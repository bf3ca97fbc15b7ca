#include "rpc_server/emulation.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The first lines of /proc/cpuinfo on each kind of machine (as the kernels print them).
constexpr char kX86Cpuinfo[] =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 167\n"
    "model name\t: Intel(R) Xeon(R) Processor\n"
    "flags\t\t: fpu vme de pse tsc msr avx2 avx512f\n";
constexpr char kRaspberryPi4Cpuinfo[] =
    "processor\t: 0\n"
    "BogoMIPS\t: 108.00\n"
    "Features\t: fp asimd evtstrm crc32 cpuid\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU variant\t: 0x0\n"
    "CPU part\t: 0xd08\n"
    "\n"
    "Hardware\t: BCM2835\n"
    "Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
constexpr char kServerArmCpuinfo[] =
    "processor\t: 0\n"
    "BogoMIPS\t: 50.00\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU part\t: 0xd0c\n";
constexpr char kRiscvCpuinfo[] =
    "processor\t: 0\n"
    "hart\t\t: 0\n"
    "isa\t\t: rv64imafdc\n"
    "mmu\t\t: sv39\n";

TEST(DetectEmulation, NativeX86_NotEmulated) {
  EmulationInfo info = DetectEmulation("x86_64", kX86Cpuinfo);
  EXPECT_FALSE(info.emulated);
  EXPECT_EQ(info.arch, "x86_64");
  EXPECT_EQ(info.cpuinfo_family, "x86");
  EXPECT_EQ(ReportedCpuModel(info), "Intel(R) Xeon(R) Processor");
}

TEST(DetectEmulation, Aarch64OnX86Cpuinfo_EmulatedAndSaysSo) {
  // qemu-user reports the guest machine in uname() and passes the host's cpuinfo through.
  EmulationInfo info = DetectEmulation("aarch64", kX86Cpuinfo);
  EXPECT_TRUE(info.emulated);
  EXPECT_EQ(info.arch, "aarch64");
  EXPECT_EQ(info.cpuinfo_family, "x86");
  EXPECT_EQ(ReportedCpuModel(info), "emulated aarch64 (qemu-user on Intel(R) Xeon(R) Processor)");
}

TEST(DetectEmulation, RaspberryPi_NativeAndUnknownModelAsBefore) {
  // No "model name" line: "unknown", as boards already in the tuning log are fingerprinted
  // (never its "Model", "Hardware" or "CPU part" line).
  EmulationInfo info = DetectEmulation("aarch64", kRaspberryPi4Cpuinfo);
  EXPECT_FALSE(info.emulated);
  EXPECT_EQ(info.cpuinfo_family, "arm");
  EXPECT_EQ(ReportedCpuModel(info), "unknown");
}

TEST(DetectEmulation, ArmWithoutModel_UnknownAndNotEmulated) {
  EmulationInfo info = DetectEmulation("aarch64", kServerArmCpuinfo);
  EXPECT_FALSE(info.emulated);
  EXPECT_EQ(ReportedCpuModel(info), "unknown");
}

TEST(DetectEmulation, Armv7UserlandOnArm64Kernel_NotEmulated) {
  // A 32-bit Raspberry Pi OS on a 64-bit kernel: uname says armv8l (or armv7l), cpuinfo Armv8.
  EXPECT_FALSE(DetectEmulation("armv8l", kRaspberryPi4Cpuinfo).emulated);
  EXPECT_FALSE(DetectEmulation("armv7l", kRaspberryPi4Cpuinfo).emulated);
  EXPECT_TRUE(DetectEmulation("armv7l", kX86Cpuinfo).emulated);
}

TEST(DetectEmulation, OtherFamilies_Compared) {
  EXPECT_TRUE(DetectEmulation("riscv64", kX86Cpuinfo).emulated);
  EXPECT_TRUE(DetectEmulation("x86_64", kRiscvCpuinfo).emulated);
  EXPECT_FALSE(DetectEmulation("riscv64", kRiscvCpuinfo).emulated);
  EXPECT_TRUE(DetectEmulation("x86_64", kRaspberryPi4Cpuinfo).emulated);
  EXPECT_FALSE(DetectEmulation("i686", kX86Cpuinfo).emulated);
}

TEST(DetectEmulation, UnknownInputs_NotEmulated) {
  // Nothing to compare: never claim emulation (and never weaken the sandbox) on a guess.
  EXPECT_FALSE(DetectEmulation("aarch64", "").emulated);
  EXPECT_FALSE(DetectEmulation("sparc64", kX86Cpuinfo).emulated);
  EXPECT_EQ(DetectEmulation("aarch64", "").host_cpu_model, "unknown");
}

TEST(MachineFamily, Names) {
  EXPECT_EQ(MachineFamily("x86_64"), "x86");
  EXPECT_EQ(MachineFamily("i386"), "x86");
  EXPECT_EQ(MachineFamily("aarch64"), "arm");
  EXPECT_EQ(MachineFamily("arm64"), "arm");
  EXPECT_EQ(MachineFamily("armv7l"), "arm");
  EXPECT_EQ(MachineFamily("ppc64le"), "ppc");
  EXPECT_EQ(MachineFamily("sparc64"), "");
}

class EmulatorExecPrefixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/emulation_test_bin");
    mkdir(dir_.c_str(), 0700);
  }
  // An executable stand-in named `name` in dir_.
  std::string AddTool(const std::string& name) {
    std::string path = absl::StrCat(dir_, "/", name);
    std::ofstream(path) << "#!/bin/sh\n";
    chmod(path.c_str(), 0700);
    return path;
  }
  std::string dir_;
};

TEST_F(EmulatorExecPrefixTest, NotEmulated_Empty) {
  absl::StatusOr<std::vector<std::string>> prefix =
      EmulatorExecPrefix(DetectEmulation("x86_64", kX86Cpuinfo), "", "", 4096, "/nonexistent");
  ASSERT_TRUE(prefix.ok()) << prefix.status();
  EXPECT_THAT(*prefix, IsEmpty());
}

TEST_F(EmulatorExecPrefixTest, Emulated_PrlimitThenQemuWithSysroot) {
  const std::string qemu = AddTool("qemu-aarch64-static");
  const std::string prlimit = AddTool("prlimit");
  absl::StatusOr<std::vector<std::string>> prefix =
      EmulatorExecPrefix(DetectEmulation("aarch64", kX86Cpuinfo), "", "/sysroot", 1024,
                         absl::StrCat("/nonexistent:", dir_));
  ASSERT_TRUE(prefix.ok()) << prefix.status();
  EXPECT_THAT(*prefix, ElementsAre(prlimit, absl::StrCat("--as=", (1024 + 512) << 20), "--", qemu,
                                   "-L", "/sysroot"));
}

TEST_F(EmulatorExecPrefixTest, NoMemoryLimit_NoPrlimit) {
  const std::string qemu = AddTool("qemu-aarch64-static");
  AddTool("prlimit");
  absl::StatusOr<std::vector<std::string>> prefix = EmulatorExecPrefix(
      DetectEmulation("aarch64", kX86Cpuinfo), "", "/sysroot", /*memory_limit_mb=*/0, dir_);
  ASSERT_TRUE(prefix.ok()) << prefix.status();
  EXPECT_THAT(*prefix, ElementsAre(qemu, "-L", "/sysroot"));
}

TEST_F(EmulatorExecPrefixTest, NoSysroot_NoDashL) {
  // Multiarch: the guest loader is the host's /lib/ld-linux-aarch64.so.1, no prefix needed.
  const std::string qemu = AddTool("qemu-aarch64-static");
  absl::StatusOr<std::vector<std::string>> prefix =
      EmulatorExecPrefix(DetectEmulation("aarch64", kX86Cpuinfo), "", "", 0, dir_);
  ASSERT_TRUE(prefix.ok()) << prefix.status();
  EXPECT_THAT(*prefix, ElementsAre(qemu));
}

TEST_F(EmulatorExecPrefixTest, ExplicitEmulator_UsedAsGiven) {
  absl::StatusOr<std::vector<std::string>> prefix =
      EmulatorExecPrefix(DetectEmulation("riscv64", kX86Cpuinfo), "/opt/qemu/bin/qemu-riscv64",
                         "/sysroot", 0, "/nonexistent");
  ASSERT_TRUE(prefix.ok()) << prefix.status();
  EXPECT_THAT(*prefix, ElementsAre("/opt/qemu/bin/qemu-riscv64", "-L", "/sysroot"));
}

TEST_F(EmulatorExecPrefixTest, NoEmulatorOnPath_NotFound) {
  absl::StatusOr<std::vector<std::string>> prefix =
      EmulatorExecPrefix(DetectEmulation("aarch64", kX86Cpuinfo), "", "", 0, "/nonexistent");
  EXPECT_EQ(prefix.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tunefarm
