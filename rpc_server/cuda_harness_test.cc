// The parts of the CUDA harness that need no GPU: reading GpuModule artifacts, launch checks
// against device limits, and (with the CUDA toolkit installed) that the hand-written PTX
// kernels assemble. The harness on a real device is exercised by cuda_backend_test.
#include "rpc_server/cuda_harness.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

v1::GpuModule ValidModule() {
  v1::GpuModule m;
  m.set_ptx(".version 7.0\n.target sm_52\n.address_size 64\n");
  m.set_entry("vadd");
  m.set_arch("sm_80");
  m.mutable_grid()->set_x(16);
  m.mutable_block()->set_x(256);
  return m;
}

// Limits of an H100 (sm_90).
CudaDeviceInfo H100() {
  CudaDeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.multiprocessors = 132;
  d.l2_bytes = 50 << 20;
  d.max_threads_per_block = 1024;
  d.max_block[0] = 1024;
  d.max_block[1] = 1024;
  d.max_block[2] = 64;
  d.max_grid[0] = 2147483647;
  d.max_grid[1] = 65535;
  d.max_grid[2] = 65535;
  d.max_shared_bytes_per_block = 48 << 10;
  return d;
}

TEST(GpuModule, Parse_Valid_RoundTrips) {
  absl::StatusOr<v1::GpuModule> m = ParseGpuModule(ValidModule().SerializeAsString());
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->entry(), "vadd");
  EXPECT_EQ(m->block().x(), 256);
}

TEST(GpuModule, Parse_NotAProto_DataLoss) {
  // What a CPU artifact (an ELF shared library) looks like to a CUDA worker.
  std::string elf(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0",
      16);
  absl::StatusOr<v1::GpuModule> m = ParseGpuModule(elf);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kDataLoss) << m.status();
  EXPECT_NE(m.status().message().find("not a GpuModule"), std::string::npos);
  EXPECT_EQ(ParseGpuModule("\xff\xff\xff").status().code(), absl::StatusCode::kDataLoss);
}

TEST(GpuModule, Parse_MissingFields_InvalidArgument) {
  EXPECT_EQ(ParseGpuModule("").status().code(), absl::StatusCode::kInvalidArgument);
  v1::GpuModule no_entry = ValidModule();
  no_entry.clear_entry();
  EXPECT_EQ(ParseGpuModule(no_entry.SerializeAsString()).status().code(),
            absl::StatusCode::kInvalidArgument);
  v1::GpuModule negative = ValidModule();
  negative.mutable_block()->set_y(-2);
  absl::StatusOr<v1::GpuModule> m = ParseGpuModule(negative.SerializeAsString());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("negative"), std::string::npos);
}

TEST(GpuModule, Read_MissingOrCorruptFile_Errors) {
  EXPECT_EQ(ReadGpuModule(TempPath("does-not-exist")).status().code(), absl::StatusCode::kNotFound);
  const std::string corrupt = TempPath("corrupt.gpu");
  WriteFile(corrupt, "\xff\xff\xff\xff");
  EXPECT_EQ(ReadGpuModule(corrupt).status().code(), absl::StatusCode::kDataLoss);
  const std::string good = TempPath("good.gpu");
  WriteFile(good, ValidModule().SerializeAsString());
  absl::StatusOr<v1::GpuModule> m = ReadGpuModule(good);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->arch(), "sm_80");
}

TEST(ParseSmArch, Names_ComputeCapability) {
  EXPECT_EQ(*ParseSmArch("sm_90"), 90);
  EXPECT_EQ(*ParseSmArch("sm_90a"), 90);
  EXPECT_EQ(*ParseSmArch("sm_100f"), 100);
  EXPECT_EQ(*ParseSmArch(""), 0);
  for (const char* bad : {"sm_", "compute_90", "90", "sm_x"}) {
    EXPECT_EQ(ParseSmArch(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(CheckLaunch, WithinLimits_Ok) {
  EXPECT_TRUE(CheckLaunch(ValidModule(), H100()).ok());
  v1::GpuModule m = ValidModule();
  m.set_arch("sm_90a");
  m.mutable_block()->set_x(32);
  m.mutable_block()->set_y(32);  // 1024 threads: the limit exactly
  m.mutable_grid()->set_y(65535);
  m.set_shared_bytes(48 << 10);
  EXPECT_TRUE(CheckLaunch(m, H100()).ok());
  m.clear_block();  // (0, 0, 0) launches as (1, 1, 1)
  EXPECT_TRUE(CheckLaunch(m, H100()).ok());
}

TEST(CheckLaunch, BeyondLimits_InvalidArgument) {
  struct Case {
    const char* what;
    void (*edit)(v1::GpuModule*);
    const char* message;
  };
  const Case cases[] = {
      {"block x", [](v1::GpuModule* m) { m->mutable_block()->set_x(2048); }, "maximum block"},
      {"block z", [](v1::GpuModule* m) { m->mutable_block()->set_z(128); }, "maximum block"},
      {"threads",
       [](v1::GpuModule* m) {
         m->mutable_block()->set_x(64);
         m->mutable_block()->set_y(32);
       },
       "2048 threads"},
      {"grid y", [](v1::GpuModule* m) { m->mutable_grid()->set_y(70000); }, "maximum grid"},
      {"arch", [](v1::GpuModule* m) { m->set_arch("sm_100"); }, "built for sm_100"},
      {"bad arch", [](v1::GpuModule* m) { m->set_arch("kepler"); }, "bad GPU architecture"},
      {"shared", [](v1::GpuModule* m) { m->set_shared_bytes(64 << 10); }, "shared memory"},
  };
  for (const Case& c : cases) {
    v1::GpuModule m = ValidModule();
    c.edit(&m);
    absl::Status s = CheckLaunch(m, H100());
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_NE(s.message().find(c.message), std::string::npos) << c.what << ": " << s;
  }
}

TEST(CudaHarness, Create_NoGpu_UnavailableNoCudaDevice) {
  absl::StatusOr<std::unique_ptr<CudaHarness>> harness = CudaHarness::Create(0, 1 << 20);
  if (harness.ok()) {
    EXPECT_FALSE((*harness)->device().name.empty());
    return;
  }
  EXPECT_EQ(harness.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(harness.status().message().find("no CUDA device"), std::string::npos)
      << harness.status();
}

}  // namespace
}  // namespace tunefarm
