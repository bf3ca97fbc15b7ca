// The sandbox child: good kernels are timed; wrong, crashing, looping and memory-hungry ones
// each yield their error class, and the next request still succeeds in a fresh child. Hostile
// kernels (printing, forking, opening sockets, hunting for the token, writing into the cache,
// killing the worker, sleeping, stopping themselves) cost at most their own child.
//
// The test's environment holds TUNEFARM_TOKEN (BUILD: env), as a worker's does.
#include "rpc_server/sandbox_process.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

std::string KernelPath(const std::string& name) {
  return std::string(std::getenv("TEST_SRCDIR")) + "/tunefarm/rpc_server/testdata/lib" + name +
         ".so";
}

v1::SandboxMeasure VaddRequest(const std::string& kernel, int n = 1024) {
  v1::SandboxMeasure m;
  v1::MeasureRequest* r = m.mutable_request();
  r->set_request_id("r");
  r->set_kernel_name("kernel");
  r->set_seed(7);
  for (int i = 0; i < 3; ++i) {
    v1::TensorArg* t = r->add_tensors();
    t->mutable_spec()->add_shape(n);
    t->mutable_spec()->set_dtype(v1::DTYPE_FLOAT32);
    t->set_is_output(i == 2);
  }
  r->mutable_timing()->set_repeat(3);
  r->set_timeout_ms(2000);
  r->mutable_reference_artifact()->set_hash("ref-vadd");
  m.set_reference_path(KernelPath("vadd"));
  m.set_artifact_path(KernelPath(kernel));
  return m;
}

class SandboxProcessTest : public ::testing::Test {
 protected:
  SandboxProcessTest() : sandbox_(Options()) {}
  static SandboxOptions Options() {
    absl::StatusOr<std::string> binary = FindSandboxBinary();
    EXPECT_TRUE(binary.ok()) << binary.status();
    return SandboxOptions{binary.value_or(""), /*memory_limit_mb=*/1024};
  }
  SandboxProcess sandbox_;
};

TEST_F(SandboxProcessTest, Measure_CorrectKernel_ReportsRepeatCosts) {
  v1::MeasureResult r = sandbox_.Measure(VaddRequest("vadd_reversed"), absl::Seconds(5));
  ASSERT_EQ(r.error(), v1::ERROR_NONE) << r.message();
  EXPECT_EQ(r.costs_s_size(), 3);
  EXPECT_GT(r.distribution().median(), 0);
}

// A weight packed ahead of time: the worker fills b, packs it once with the artifact's pack
// function and calls the kernel with the packed copy (the kernel is wrong on b unpacked).
TEST_F(SandboxProcessTest, Measure_PackedArgument_PackedOnceBeforeTheKernel) {
  v1::SandboxMeasure m = VaddRequest("vadd_packed");
  EXPECT_EQ(sandbox_.Measure(m, absl::Seconds(5)).error(), v1::WRONG_ANSWER);
  v1::PackedArg* p = m.mutable_request()->add_packed_args();
  p->set_arg_index(1);
  p->mutable_spec()->add_shape(1024);
  p->mutable_spec()->set_dtype(v1::DTYPE_FLOAT32);
  p->set_pack_kernel_name("pack_b");
  v1::MeasureResult r = sandbox_.Measure(m, absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::ERROR_NONE) << r.message();

  v1::SandboxMeasure missing = m;
  missing.mutable_request()->mutable_packed_args(0)->set_pack_kernel_name("pack_x");
  r = sandbox_.Measure(missing, absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::LOAD_ERROR);
  EXPECT_NE(r.message().find("pack_x"), std::string::npos) << r.message();
  v1::SandboxMeasure output = m;
  output.mutable_request()->mutable_packed_args(0)->set_arg_index(2);
  EXPECT_EQ(sandbox_.Measure(output, absl::Seconds(5)).error(), v1::INVALID_REQUEST);
  v1::SandboxMeasure bad_shape = m;
  bad_shape.mutable_request()->mutable_packed_args(0)->mutable_spec()->set_shape(0, 7);
  EXPECT_EQ(sandbox_.Measure(bad_shape, absl::Seconds(5)).error(), v1::RUNTIME_ERROR);
}

TEST_F(SandboxProcessTest, Measure_WrongAndSkippedWrites_WrongAnswer) {
  EXPECT_EQ(sandbox_.Measure(VaddRequest("wrong"), absl::Seconds(5)).error(), v1::WRONG_ANSWER);
  v1::MeasureResult r = sandbox_.Measure(VaddRequest("skip_writes"), absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::WRONG_ANSWER);
  EXPECT_NE(r.message().find("1023"), std::string::npos) << r.message();
  EXPECT_EQ(sandbox_.spawn_count(), 1);
}

TEST_F(SandboxProcessTest, Measure_FailingKernels_ErrorClassesAndRecovery) {
  EXPECT_EQ(sandbox_.Measure(VaddRequest("segfault"), absl::Seconds(5)).error(), v1::RUNTIME_ERROR);
  EXPECT_EQ(sandbox_.Measure(VaddRequest("bad_rc"), absl::Seconds(5)).error(), v1::RUNTIME_ERROR);
  v1::SandboxMeasure loop = VaddRequest("loop");
  loop.mutable_request()->set_timeout_ms(500);
  EXPECT_EQ(sandbox_.Measure(loop, absl::Milliseconds(800)).error(), v1::TIMEOUT);
  v1::MeasureResult oom = sandbox_.Measure(VaddRequest("oom"), absl::Seconds(10));
  EXPECT_EQ(oom.error(), v1::OUT_OF_MEMORY) << oom.message();
  EXPECT_NE(oom.message().find("1024 MiB"), std::string::npos) << oom.message();
  v1::MeasureResult load = sandbox_.Measure(VaddRequest("missing"), absl::Seconds(5));
  EXPECT_EQ(load.error(), v1::LOAD_ERROR);
  // The sandbox recovers: a fresh child measures the next kernel.
  EXPECT_EQ(sandbox_.Measure(VaddRequest("vadd"), absl::Seconds(5)).error(), v1::ERROR_NONE);
  EXPECT_GE(sandbox_.spawn_count(), 4);
}

// Memory exhaustion is an event: an allocation that failed makes the class OUT_OF_MEMORY even
// when the kernel goes on to spin until the wall clock kills it.
TEST_F(SandboxProcessTest, Measure_AllocationFailsThenSpins_OutOfMemoryNotTimeout) {
  v1::SandboxMeasure spin = VaddRequest("oom_spin");
  spin.mutable_request()->set_timeout_ms(500);
  v1::MeasureResult r = sandbox_.Measure(spin, absl::Seconds(1));
  EXPECT_EQ(r.error(), v1::OUT_OF_MEMORY) << r.message();
  EXPECT_NE(r.message().find("wall-clock timeout"), std::string::npos) << r.message();
}

// Paging in the whole limit costs CPU time that varies a lot between machines; the CPU-time
// backstop leaves the wall clock in charge, and its 60 s are far more than any machine needs.
TEST_F(SandboxProcessTest, Measure_KernelPagesInWholeLimit_OutOfMemory) {
  v1::SandboxMeasure touch = VaddRequest("oom_touch");
  touch.mutable_request()->set_timeout_ms(60000);
  v1::MeasureResult r = sandbox_.Measure(touch, absl::Seconds(60));
  EXPECT_EQ(r.error(), v1::OUT_OF_MEMORY) << r.message();
}

// A hostile kernel that computes the right answer only if its attack failed. (glibc's fork()
// is the clone system call.)
TEST_F(SandboxProcessTest, Hostile_ReadsEnvironmentForToken_FindsNothing) {
  ASSERT_NE(std::getenv("TUNEFARM_TOKEN"), nullptr) << "BUILD must set TUNEFARM_TOKEN";
  v1::MeasureResult r = sandbox_.Measure(VaddRequest("read_token"), absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::ERROR_NONE) << "the kernel found the token: " << r.message();
}

TEST_F(SandboxProcessTest, Hostile_WritesToStdout_MeasuredNormally) {
  v1::MeasureResult r = sandbox_.Measure(VaddRequest("stdout"), absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::ERROR_NONE) << r.message();
  EXPECT_EQ(sandbox_.spawn_count(), 1);
}

TEST_F(SandboxProcessTest, Hostile_ForbiddenCalls_EndChildWithTheCallNamed) {
  for (const auto& [kernel, call] :
       std::vector<std::pair<std::string, std::string>>{{"fork", "clone"},
                                                        {"socket", "socket"},
                                                        {"kill_parent", "kill"},
                                                        {"unlisted", "personality"}}) {
    v1::MeasureResult r = sandbox_.Measure(VaddRequest(kernel), absl::Seconds(5));
    EXPECT_EQ(r.error(), v1::RUNTIME_ERROR) << kernel << ": " << r.message();
    EXPECT_NE(r.message().find("forbidden system call: " + call), std::string::npos)
        << kernel << ": " << r.message();
  }
  // We are alive (kill_parent failed), and a fresh child measures the next kernel.
  EXPECT_EQ(sandbox_.Measure(VaddRequest("vadd"), absl::Seconds(5)).error(), v1::ERROR_NONE);
  EXPECT_EQ(sandbox_.spawn_count(), 5);
}

TEST_F(SandboxProcessTest, Hostile_WritesIntoArtifactCache_RefusedAndFileUnchanged) {
  // The artifact lies in a private cache directory, as on a worker.
  std::filesystem::path cache = std::filesystem::path(std::getenv("TEST_TMPDIR")) / "cache";
  std::filesystem::create_directories(cache);
  std::filesystem::permissions(cache, std::filesystem::perms::owner_all);
  std::filesystem::path artifact = cache / "libwrite_cache.so";
  std::filesystem::copy_file(KernelPath("write_cache"), artifact,
                             std::filesystem::copy_options::overwrite_existing);
  auto read = [&] {
    std::ifstream in(artifact, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string before = read();
  v1::SandboxMeasure m = VaddRequest("vadd");
  m.set_artifact_path(artifact.string());
  v1::MeasureResult r = sandbox_.Measure(m, absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR) << r.message();
  EXPECT_NE(r.message().find("forbidden system call: open"), std::string::npos) << r.message();
  EXPECT_EQ(read(), before);
}

TEST_F(SandboxProcessTest, Hostile_SleepsForever_TimeoutAfterWallClock) {
  v1::SandboxMeasure m = VaddRequest("sleep");
  m.mutable_request()->set_timeout_ms(300);
  v1::MeasureResult r = sandbox_.Measure(m, absl::Milliseconds(300));
  EXPECT_EQ(r.error(), v1::TIMEOUT) << r.message();
}

TEST_F(SandboxProcessTest, Hostile_StopsItself_TimeoutSaysStopped) {
  v1::SandboxMeasure m = VaddRequest("sigstop");
  m.mutable_request()->set_timeout_ms(300);
  v1::MeasureResult r = sandbox_.Measure(m, absl::Milliseconds(300));
  EXPECT_EQ(r.error(), v1::TIMEOUT) << r.message();
  EXPECT_NE(r.message().find("stopped itself"), std::string::npos) << r.message();
  EXPECT_EQ(sandbox_.Measure(VaddRequest("vadd"), absl::Seconds(5)).error(), v1::ERROR_NONE);
}

TEST_F(SandboxProcessTest, Confinement_ReportedByChild) {
  ASSERT_EQ(sandbox_.Measure(VaddRequest("vadd"), absl::Seconds(5)).error(), v1::ERROR_NONE);
  EXPECT_NE(sandbox_.confinement() & kConfinedSeccomp, 0u);
  EXPECT_NE(sandbox_.confinement() & kConfinedNoFileWrites, 0u);
}

TEST_F(SandboxProcessTest, Measure_AdaptiveMode_ReportsConfidenceInterval) {
  v1::SandboxMeasure m = VaddRequest("vadd", 4096);
  m.mutable_request()->mutable_timing()->set_adaptive(true);
  m.mutable_request()->mutable_timing()->set_repeat(0);  // adaptive default minimum: 5
  m.mutable_request()->mutable_timing()->set_min_repeat_ms(1);
  m.mutable_request()->mutable_timing()->set_target_rel_ci(0.05);
  m.mutable_request()->mutable_timing()->set_max_time_ms(500);
  v1::MeasureResult r = sandbox_.Measure(m, absl::Seconds(5));
  ASSERT_EQ(r.error(), v1::ERROR_NONE) << r.message();
  EXPECT_GE(r.costs_s_size(), 5);
  EXPECT_LE(r.distribution().ci_low(), r.distribution().median());
  EXPECT_GE(r.distribution().ci_high(), r.distribution().median());
  EXPECT_GE(r.distribution().number(), 1);
}

TEST_F(SandboxProcessTest, Calibrate_Runs_ReturnsCosts) {
  absl::StatusOr<std::vector<double>> costs = sandbox_.Calibrate(10, absl::Seconds(5));
  ASSERT_TRUE(costs.ok()) << costs.status();
  EXPECT_EQ(costs->size(), 10u);
}

// A worker that did not detect emulation never trusts a child that went without the seccomp
// filter (kConfinedEmulated): the child is killed and its answer dropped, every time.
TEST(EmulatedChild, NotEmulatedWorker_ChildReportsEmulated_Refused) {
  const std::string fake = std::string(std::getenv("TEST_SRCDIR")) +
                           "/tunefarm/rpc_server/testdata/fake_emulated_sandbox";
  SandboxProcess sandbox(SandboxOptions{fake, 1024});
  v1::MeasureResult r = sandbox.Measure(VaddRequest("vadd"), absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_EQ(r.costs_s_size(), 0);
  EXPECT_NE(r.message().find("not emulated"), std::string::npos) << r.message();
  absl::StatusOr<std::vector<double>> costs = sandbox.Calibrate(5, absl::Seconds(5));
  EXPECT_EQ(costs.status().code(), absl::StatusCode::kFailedPrecondition) << costs.status();
  EXPECT_EQ(sandbox.spawn_count(), 2);  // refused, killed, and a fresh child refused again
}

// The same child on a worker that detected emulation itself is accepted.
TEST(EmulatedChild, EmulatedWorker_ChildReportsEmulated_Accepted) {
  const std::string fake = std::string(std::getenv("TEST_SRCDIR")) +
                           "/tunefarm/rpc_server/testdata/fake_emulated_sandbox";
  SandboxOptions options{fake, 1024};
  options.emulated = true;
  SandboxProcess sandbox(options);
  absl::StatusOr<std::vector<double>> costs = sandbox.Calibrate(5, absl::Seconds(5));
  ASSERT_TRUE(costs.ok()) << costs.status();
  EXPECT_EQ(costs->size(), 5u);
  EXPECT_NE(sandbox.confinement() & kConfinedEmulated, 0u);
}

// A CUDA sandbox child on a machine without a usable GPU answers a request with the driver's
// reason, then exits so that the next request gets a fresh child (a context may be available
// by then); on a machine with a GPU, the calibration kernel runs on it.
TEST(CudaSandbox, NoGpu_RequestsAnswerNoCudaDevice) {
  absl::StatusOr<std::string> binary = FindSandboxBinary();
  ASSERT_TRUE(binary.ok()) << binary.status();
  SandboxProcess sandbox(SandboxOptions{*binary, 1024, "cuda:0"});
  absl::StatusOr<std::vector<double>> costs = sandbox.Calibrate(5, absl::Seconds(20));
  if (costs.ok()) {
    EXPECT_EQ(costs->size(), 5u);
    return;
  }
  EXPECT_EQ(costs.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(costs.status().message().find("no CUDA device"), std::string::npos) << costs.status();
  v1::MeasureResult r = sandbox.Measure(VaddRequest("vadd"), absl::Seconds(20));
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_NE(r.message().find("no CUDA device"), std::string::npos) << r.message();
  EXPECT_EQ(sandbox.spawn_count(), 2);  // each request answered by a fresh child
}

TEST(CudaSandbox, BadDeviceArgument_ChildExitsWithUsageError) {
  absl::StatusOr<std::string> binary = FindSandboxBinary();
  ASSERT_TRUE(binary.ok()) << binary.status();
  SandboxProcess sandbox(SandboxOptions{*binary, 1024, "bogus"});
  v1::MeasureResult r = sandbox.Measure(VaddRequest("vadd"), absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_NE(r.message().find("status 2"), std::string::npos) << r.message();
}

}  // namespace
}  // namespace tunefarm
