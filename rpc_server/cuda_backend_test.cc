// CudaBackend end to end: GpuModule artifacts measured through a `tunefarm_sandbox MB cuda:0`
// child, checked against a host reference library. Without a GPU, Create must report "no
// CUDA device" and the GPU cases are skipped with that reason. Built a second time with
// TUNEFARM_TEST_FAKE_DRIVER (cuda_backend_fake_driver_test), the same cases run on the fake
// driver of testdata/fake_libcuda.c, so the CUDA path is exercised on every machine.
#include "rpc_server/cuda_backend.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "proto/gpu_module.pb.h"
#include "rpc_server/backend_factory.h"

namespace tunefarm {
namespace {

constexpr int kElements = 4096;  // what the kernels in testdata/vadd.ptx are written for

std::string Runfile(const std::string& path) {
  return absl::StrCat(std::getenv("TEST_SRCDIR"), "/tunefarm/", path);
}

std::string TestPtx() {
  std::ifstream in(Runfile("rpc_server/testdata/vadd.ptx"));
  std::stringstream ptx;
  ptx << in.rdbuf();
  return ptx.str();
}

SandboxOptions Options() {
  absl::StatusOr<std::string> binary = FindSandboxBinary();
  EXPECT_TRUE(binary.ok()) << binary.status();
  return SandboxOptions{binary.value_or(""), /*memory_limit_mb=*/1024};
}

// Writes a GpuModule with `entry` of `ptx` (16 blocks of 256 threads) and returns its path.
std::string WriteModule(const std::string& name, const std::string& entry,
                        const std::string& ptx = TestPtx(), int block_x = 256) {
  v1::GpuModule m;
  m.set_ptx(ptx);
  m.set_entry(entry);
  m.set_arch("sm_52");
  m.mutable_grid()->set_x(kElements / 256);
  m.mutable_grid()->set_y(1);
  m.mutable_grid()->set_z(1);
  m.mutable_block()->set_x(block_x);
  m.mutable_block()->set_y(1);
  m.mutable_block()->set_z(1);
  std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name, ".gpu");
  std::ofstream out(path, std::ios::binary);
  out << m.SerializeAsString();
  return path;
}

// c = a + b over float32[4096], checked against the host library testdata/libvadd.so.
v1::MeasureRequest VaddRequest() {
  v1::MeasureRequest r;
  r.set_request_id("r");
  r.set_kernel_name("vadd");
  r.set_reference_kernel_name("kernel");
  r.set_seed(7);
  for (int i = 0; i < 3; ++i) {
    v1::TensorArg* t = r.add_tensors();
    t->mutable_spec()->add_shape(kElements);
    t->mutable_spec()->set_dtype(v1::DTYPE_FLOAT32);
    t->set_is_output(i == 2);
  }
  r.mutable_timing()->set_repeat(3);
  r.mutable_timing()->set_min_repeat_ms(1);
  r.set_timeout_ms(10000);
  r.mutable_reference_artifact()->set_hash("ref-vadd");
  return r;
}

const std::string kReference = "rpc_server/testdata/libvadd.so";

#ifdef TUNEFARM_TEST_FAKE_DRIVER
// Before any CudaDriver::Load, in this process and the sandbox children it starts.
const bool kUseFakeDriver = [] {
  setenv("TUNEFARM_LIBCUDA", Runfile("rpc_server/testdata/libfakecuda.so").c_str(), 1);
  return true;
}();
#endif

TEST(CudaBackendCreate, NoGpu_UnavailableNoCudaDevice) {
  absl::StatusOr<std::unique_ptr<CudaBackend>> backend = CudaBackend::Create(Options(), 0);
  if (backend.ok()) {
    v1::DeviceDescription d;
    (*backend)->Describe(&d);
    EXPECT_FALSE(d.gpu_name().empty());
    EXPECT_EQ(d.gpu_arch().rfind("sm_", 0), 0u) << d.gpu_arch();
    EXPECT_GT(d.memory_bytes(), 0);
    EXPECT_GT(d.gpu_multiprocessors(), 0);
    return;
  }
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(backend.status().message().find("no CUDA device"), std::string::npos)
      << backend.status();
}

TEST(CudaBackendCreate, OrdinalOutOfRange_UnavailableNoCudaDevice) {
  absl::StatusOr<std::unique_ptr<CudaBackend>> backend = CudaBackend::Create(Options(), 4096);
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(backend.status().message().find("no CUDA device"), std::string::npos)
      << backend.status();
}

TEST(CreateDeviceBackend, CpuAlwaysCudaWhenPresent) {
  absl::StatusOr<std::unique_ptr<DeviceBackend>> cpu =
      CreateDeviceBackend(*ParseDeviceSpec("cpu"), Options());
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  v1::DeviceDescription d;
  (*cpu)->Describe(&d);
  EXPECT_FALSE(d.cpu_model().empty());
  absl::StatusOr<std::unique_ptr<DeviceBackend>> cuda =
      CreateDeviceBackend(*ParseDeviceSpec("cuda:0"), Options());
  if (!cuda.ok()) {
    EXPECT_EQ(cuda.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(cuda.status().message().find("no CUDA device"), std::string::npos);
  }
}

// The cases below need a GPU; without one they are skipped with the driver's reason.
class CudaBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<CudaBackend>> backend = CudaBackend::Create(Options(), 0);
    if (!backend.ok()) GTEST_SKIP() << backend.status().message();
    backend_ = std::move(*backend);
  }
  v1::MeasureResult Measure(const v1::MeasureRequest& r, const std::string& artifact) {
    return backend_->Measure(r, artifact, Runfile(kReference));
  }
  std::unique_ptr<CudaBackend> backend_;
};

TEST_F(CudaBackendTest, Measure_VectorAdd_CorrectWithEventCosts) {
  v1::MeasureRequest r = VaddRequest();
  r.mutable_timing()->set_flush_cache(true);
  v1::MeasureResult result = Measure(r, WriteModule("vadd", "vadd"));
  ASSERT_EQ(result.error(), v1::ERROR_NONE) << result.message();
  ASSERT_EQ(result.costs_s_size(), 3);
  for (double c : result.costs_s()) {
    EXPECT_GT(c, 0);
    EXPECT_LT(c, 0.01);  // a 4096-element add takes microseconds
  }
  EXPECT_GE(result.distribution().number(), 1);
  // Checksum mode needs no reference artifact.
  v1::MeasureRequest sums = VaddRequest();
  sums.mutable_reference_sums()->add_sums(0);  // wrong on purpose: sums of random inputs != 0
  v1::MeasureResult wrong_sum = backend_->Measure(sums, WriteModule("vadd", "vadd"), "");
  EXPECT_EQ(wrong_sum.error(), v1::WRONG_ANSWER) << wrong_sum.message();
}

TEST_F(CudaBackendTest, Measure_AdaptiveMode_ConfidenceInterval) {
  v1::MeasureRequest r = VaddRequest();
  r.mutable_timing()->set_adaptive(true);
  r.mutable_timing()->set_repeat(0);
  r.mutable_timing()->set_target_rel_ci(0.05);
  r.mutable_timing()->set_max_time_ms(500);
  v1::MeasureResult result = Measure(r, WriteModule("vadd", "vadd"));
  ASSERT_EQ(result.error(), v1::ERROR_NONE) << result.message();
  EXPECT_GE(result.costs_s_size(), 5);
  EXPECT_LE(result.distribution().ci_low(), result.distribution().median());
}

TEST_F(CudaBackendTest, Measure_WrongKernel_WrongAnswer) {
  v1::MeasureResult result = Measure(VaddRequest(), WriteModule("wrong", "vadd_wrong"));
  EXPECT_EQ(result.error(), v1::WRONG_ANSWER) << result.message();
  EXPECT_EQ(backend_->sandbox().spawn_count(), 1);
}

TEST_F(CudaBackendTest, Measure_IllegalAddress_RuntimeErrorThenFreshChild) {
  v1::MeasureResult fault = Measure(VaddRequest(), WriteModule("illegal", "vadd_illegal_address"));
  EXPECT_EQ(fault.error(), v1::RUNTIME_ERROR) << fault.message();
  EXPECT_NE(fault.message().find("ILLEGAL_ADDRESS"), std::string::npos) << fault.message();
  // The faulted child exited; the next request runs in a fresh one and succeeds.
  v1::MeasureResult next = Measure(VaddRequest(), WriteModule("vadd", "vadd"));
  EXPECT_EQ(next.error(), v1::ERROR_NONE) << next.message();
  EXPECT_EQ(backend_->sandbox().spawn_count(), 2);
}

TEST_F(CudaBackendTest, Measure_BadArtifacts_LoadOrInvalidRequest) {
  const std::string corrupt = absl::StrCat(std::getenv("TEST_TMPDIR"), "/corrupt.gpu");
  std::ofstream(corrupt) << "\xff\xff\xff\xff";
  v1::MeasureResult r = Measure(VaddRequest(), corrupt);
  EXPECT_EQ(r.error(), v1::LOAD_ERROR) << r.message();
  EXPECT_NE(r.message().find("not a GpuModule"), std::string::npos) << r.message();

  std::string bad_ptx = absl::StrReplaceAll(TestPtx(), {{"add.f32", "addd.f32"}});
  r = Measure(VaddRequest(), WriteModule("syntax", "vadd", bad_ptx));
  EXPECT_EQ(r.error(), v1::LOAD_ERROR) << r.message();
  EXPECT_NE(r.message().find("addd"), std::string::npos) << "no ptxas log: " << r.message();

  r = Measure(VaddRequest(), WriteModule("noentry", "no_such_kernel"));
  EXPECT_EQ(r.error(), v1::LOAD_ERROR) << r.message();

  r = Measure(VaddRequest(), WriteModule("bigblock", "vadd", TestPtx(), /*block_x=*/4096));
  EXPECT_EQ(r.error(), v1::INVALID_REQUEST) << r.message();
  // Two tensors for a three-parameter kernel (drivers that can count parameters, 12.4+).
  if ((*CudaDriver::Load())->cuFuncGetParamInfo != nullptr) {
    v1::MeasureRequest two = VaddRequest();
    two.mutable_tensors()->DeleteSubrange(0, 1);
    two.mutable_reference_sums()->add_sums(0);
    r = backend_->Measure(two, WriteModule("vadd", "vadd"), "");
    EXPECT_EQ(r.error(), v1::INVALID_REQUEST) << r.message();
    EXPECT_NE(r.message().find("takes 3 parameters"), std::string::npos) << r.message();
  }
  // None of these faulted the context.
  EXPECT_EQ(backend_->sandbox().spawn_count(), 1);
}

TEST_F(CudaBackendTest, MeasureNoise_CalibrationKernel_SmallCv) {
  absl::StatusOr<double> noise = backend_->MeasureNoise();
  ASSERT_TRUE(noise.ok()) << noise.status();
  EXPECT_GE(*noise, 0);
  EXPECT_LT(*noise, 0.5);
}

}  // namespace
}  // namespace tunefarm
