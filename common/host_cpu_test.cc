#include "common/host_cpu.h"

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

// The first lines of /proc/cpuinfo on each kind of machine (as the kernels print them).
constexpr char kX86Cpuinfo[] =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "model\t\t: 167\n"
    "model name\t: Intel(R) Xeon(R) Processor\n"
    "flags\t\t: fpu vme de pse tsc msr avx2 avx512f\n"
    "\n"
    "processor\t: 1\n"
    "model name\t: Intel(R) Xeon(R) Processor\n";
constexpr char kRaspberryPi4Cpuinfo[] =
    "processor\t: 0\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU part\t: 0xd08\n"
    "\n"
    "Hardware\t: BCM2835\n"
    "Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n";

TEST(CpuinfoModel, X86_FirstModelName) {
  EXPECT_EQ(CpuinfoModel(kX86Cpuinfo), "Intel(R) Xeon(R) Processor");
}

TEST(CpuinfoModel, ArmBoardWithoutModelName_UnknownAsBefore) {
  // Devices are fingerprinted by this name: a board stored as "unknown" must stay "unknown",
  // not become "BCM2835", "0xd08" or its "Model" line.
  EXPECT_EQ(CpuinfoModel(kRaspberryPi4Cpuinfo), "unknown");
  EXPECT_EQ(CpuinfoModel(""), "unknown");
}

TEST(CpuinfoField, ExactKeyFirstLineStripped) {
  EXPECT_EQ(CpuinfoField(kX86Cpuinfo, "model"), "167");
  EXPECT_EQ(CpuinfoField(kRaspberryPi4Cpuinfo, "CPU architecture"), "8");
  EXPECT_EQ(CpuinfoField(kRaspberryPi4Cpuinfo, "Model"), "Raspberry Pi 4 Model B Rev 1.4");
  EXPECT_EQ(CpuinfoField(kRaspberryPi4Cpuinfo, "vendor_id"), "");
}

TEST(HostCpuModel, SameAsItsCpuinfo) { EXPECT_EQ(HostCpuModel(), CpuinfoModel(ReadHostCpuinfo())); }

}  // namespace
}  // namespace tunefarm
