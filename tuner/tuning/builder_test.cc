// The builder's artifacts: CPU targets get shared libraries; cuda targets get a serialized
// GpuModule per config (PTX + launch) and a host shared library as the reference.
#include "tuner/tuning/builder.h"

#include "absl/strings/match.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"
#include "gtest/gtest.h"
#include "proto/gpu_module.pb.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {
namespace {

bool IsElf(const std::string& bytes) {
  return bytes.rfind(
             "\x7f"
             "ELF",
             0) == 0;
}

TEST(Builder, CudaTask_GpuModulePerConfigAndHostReference) {
  auto task = MakeTask("dense", {64, 32, 48}, "float16", "cuda -arch=sm_90", "gpu-test");
  ASSERT_TRUE(task.ok()) << task.status();
  BuildResult ref = BuildConfig(*task, std::nullopt);
  ASSERT_TRUE(ref.status.ok()) << ref.status;
  EXPECT_TRUE(IsElf(ref.artifact));
  int built = 0;
  for (int64_t index = 0; index < task->space->size() && built < 3; index += 97) {
    BuildResult r = BuildConfig(*task, index);
    if (r.status.code() == absl::StatusCode::kFailedPrecondition) continue;  // over a limit
    ASSERT_TRUE(r.status.ok()) << r.status;
    v1::GpuModule m;
    ASSERT_TRUE(m.ParseFromString(r.artifact));
    EXPECT_EQ(m.entry(), kKernelName);
    EXPECT_EQ(m.arch(), "sm_90");
    EXPECT_TRUE(absl::StrContains(m.ptx(), std::string(".entry ") + kKernelName));
    EXPECT_GT(m.block().x() * m.block().y() * m.block().z(), 0);
    EXPECT_EQ(int64_t{m.grid().x()} * m.grid().y() * m.grid().z() *
                      (m.block().x() * m.block().y() * m.block().z()) >
                  0,
              true);
    ASSERT_EQ(r.tensors.size(), 3u);
    EXPECT_EQ(r.tensors[0].spec().dtype(), v1::DTYPE_FLOAT16);
    EXPECT_EQ(r.tensors[2].spec().dtype(), v1::DTYPE_FLOAT32);
    EXPECT_TRUE(r.tensors[2].is_output());
    ++built;
  }
  EXPECT_EQ(built, 3);
}

TEST(Builder, CpuTask_SharedLibrary) {
  auto task = MakeTask("dense", {16, 16, 16}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok());
  BuildResult r = BuildConfig(*task, 0);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(IsElf(r.artifact));
  EXPECT_FALSE(r.artifact_hash.empty());
}

// A kernel over the size bound is refused before LLVM sees it: a result with its error and
// its tensors, not a build.
TEST(Builder, KernelOverSizeBound_ResourceExhaustedNotCompiled) {
  auto task = MakeTask("dense", {16, 16, 16}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok());
  BuildResult r = BuildConfig(*task, 0, /*max_kernel_nodes=*/20);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kResourceExhausted) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(), "IR nodes")) << r.status;
  EXPECT_TRUE(r.artifact.empty());
  EXPECT_EQ(r.tensors.size(), 3u);
  EXPECT_TRUE(BuildConfig(*task, 0).status.ok());
}

// A copy of a uint32 vector: a dtype the language and the registry's templates never produce,
// and the measurement protocol does not carry.
class Uint32CopyTemplate : public Template {
 public:
  std::string name() const override { return "uint32_copy"; }
  std::string args_doc() const override { return "N"; }
  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& args,
                                        ir::DataType dtype) const override {
    return Workload{name(), args, dtype, static_cast<double>(args[0])};
  }
  absl::Status DefineSpace(const Workload&, const codegen::Target&, ConfigSpace*) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target&,
                                       const Config*) const override {
    const ir::Expr n(static_cast<int32_t>(w.args[0]));
    te::Tensor x = te::Placeholder({n}, w.dtype, "X");
    auto y = te::Compute(
        {n}, [&](const std::vector<ir::Var>& i) { return x(i[0]); }, "Y");
    if (!y.ok()) return y.status();
    auto sch = schedule::Schedule::Create({*y});
    if (!sch.ok()) return sch.status();
    Instance inst;
    inst.args = {x, *y};
    inst.sch = *std::move(sch);
    return inst;
  }
};

// An argument in a dtype no worker could allocate is refused by name before anything is
// compiled or sent to the farm.
TEST(Builder, ArgumentDtypeTheFarmDoesNotCarry_InvalidArgumentNamingIt) {
  TuneTask task;
  task.tmpl = std::make_shared<Uint32CopyTemplate>();
  auto w = task.tmpl->MakeWorkload({64}, ir::DataType::UInt(32));
  ASSERT_TRUE(w.ok()) << w.status();
  task.workload = *w;
  auto target = codegen::ParseTarget("llvm");
  ASSERT_TRUE(target.ok()) << target.status();
  task.target = *target;
  task.device_key = "cpu-test";
  task.space = std::make_shared<ConfigSpace>();
  BuildResult r = BuildConfig(task, std::nullopt);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(), "argument 'X' is uint32")) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(), "does not carry")) << r.status;
  EXPECT_TRUE(r.artifact.empty());
  EXPECT_TRUE(r.tensors.empty());

  // The same copy in a carried dtype builds.
  task.workload.dtype = ir::DataType::UInt(8);
  BuildResult carried = BuildConfig(task, std::nullopt);
  EXPECT_TRUE(carried.status.ok()) << carried.status;
  EXPECT_TRUE(IsElf(carried.artifact));
}

}  // namespace
}  // namespace tunefarm::tuner
