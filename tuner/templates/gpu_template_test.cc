// The CUDA variants of the templates without a GPU: random configs of each build to PTX, and
// their loop nests, run serially on the host (GPU emulation), match the reference program.
// Configs whose tiles exceed the GPU's limits are rejected by the verifier (a minority).
#include <random>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/codegen_nvptx.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_testing.h"

namespace tunefarm::tuner {
namespace {

using Case = TemplateCase;

class GpuTemplateTest : public ::testing::TestWithParam<Case> {};

TEST_P(GpuTemplateTest, RandomConfigs_BuildPtxAndMatchReference) {
  const Case& c = GetParam();
  auto t = FindTemplate(c.name);
  ASSERT_TRUE(t.ok()) << t.status();
  auto w = (*t)->MakeWorkload(c.args, *ir::ParseDataType(c.dtype));
  ASSERT_TRUE(w.ok()) << w.status();
  codegen::Target cuda = *codegen::ParseTarget("cuda -arch=sm_90");
  ConfigSpace space;
  ASSERT_TRUE((*t)->DefineSpace(*w, cuda, &space).ok());
  auto ref = RunConfig(**t, *w, cuda, nullptr, 7);
  ASSERT_TRUE(ref.ok()) << ref.status();
  std::mt19937_64 rng(42);
  const int kConfigs = 12;
  int rejected = 0;
  for (int i = 0; i < kConfigs; ++i) {
    int64_t index = static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size()));
    auto cfg = space.Get(index);
    ASSERT_TRUE(cfg.ok());
    auto out = RunConfig(**t, *w, cuda, &*cfg, 7);
    if (out.status().code() == absl::StatusCode::kFailedPrecondition) {
      ++rejected;  // Beyond a GPU limit (e.g. shared memory): a clean build error.
      continue;
    }
    ASSERT_TRUE(out.ok()) << cfg->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0)
        << c.name << " config " << cfg->ToJson();
  }
  EXPECT_LE(rejected * 3, kConfigs) << rejected << " of " << kConfigs << " configs rejected";
}

INSTANTIATE_TEST_SUITE_P(
    CudaTemplates, GpuTemplateTest,
    ::testing::Values(
        Case{"dense", {64, 48, 32}}, Case{"dense", {32, 16, 64}, "float16"},
        Case{"dense_splitk", {16, 8, 256}}, Case{"dense_splitk", {12, 16, 96}, "float16"},
        Case{"dense_tensorcore", {64, 64, 64}, "float16"},
        Case{"dense_tensorcore", {32, 96, 48}, "float16"},
        Case{"batch_matmul_tensorcore", {3, 32, 48, 32}, "float16"},
        Case{"batch_matmul", {2, 16, 32, 24}}, Case{"batch_matmul", {2, 16, 16, 32}, "float16"},
        Case{"conv2d", {1, 8, 10, 12, 8, 3, 3, 1, 1}}, Case{"conv2d", {2, 4, 9, 9, 6, 3, 3, 2, 0}},
        Case{"depthwise_conv2d", {1, 8, 12, 10, 3, 3, 1, 1}},
        Case{"depthwise_conv2d", {1, 4, 12, 12, 3, 3, 1, 1}, "float16"},
        Case{"conv2d", {1, 8, 8, 8, 8, 3, 3, 1, 1}, "float16"},
        Case{"depthwise_conv2d", {2, 4, 12, 12, 5, 5, 2, 2}}, Case{"softmax", {70, 40}},
        Case{"bias_relu", {12, 48}}, Case{"bias_relu", {7, 30}}),
    [](const auto& info) { return TemplateCaseName(info.param, info.index); });

TEST(GpuTemplates, Float16Dense_OutputIsFloat32) {
  auto t = *FindTemplate("dense");
  auto w = *t->MakeWorkload({16, 16, 16}, ir::DataType::Float(16));
  codegen::Target cuda = *codegen::ParseTarget("cuda -arch=sm_80");
  ConfigSpace space;
  ASSERT_TRUE(t->DefineSpace(w, cuda, &space).ok());
  auto cfg = space.Get(0);
  ASSERT_TRUE(cfg.ok());
  auto inst = t->Instantiate(w, cuda, &*cfg);
  ASSERT_TRUE(inst.ok()) << inst.status();
  EXPECT_EQ(inst->args[0].dtype(), ir::DataType::Float(16));
  EXPECT_EQ(inst->args.back().dtype(), ir::DataType::Float(32));
}

TEST(GpuTemplates, Softmax_RowStatisticsAreTwoRegisters) {
  // Regression: a stage read by two readers at the same loop (row_max, read by row_sum and by
  // Y through the inlined exp) used to widen to the whole tensor per thread.
  auto t = *FindTemplate("softmax");
  auto w = *t->MakeWorkload({4096, 1000}, ir::DataType::Float(32));
  codegen::Target cuda = *codegen::ParseTarget("cuda -arch=sm_90");
  ConfigSpace space;
  ASSERT_TRUE(t->DefineSpace(w, cuda, &space).ok());
  auto cfg = space.Get(0);
  ASSERT_TRUE(cfg.ok());
  auto inst = t->Instantiate(w, cuda, &*cfg);
  ASSERT_TRUE(inst.ok()) << inst.status();
  auto f = lower::Lower(*inst->sch, inst->args, "softmax");
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, cuda);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->launch.local_bytes, 8);
}

TEST(GpuTemplates, Softmax_EveryConfigMatchesReference) {
  // Both forms: a row per thread, and a row per block with cross-thread reductions.
  auto t = *FindTemplate("softmax");
  auto w = *t->MakeWorkload({9, 300}, ir::DataType::Float(32));
  codegen::Target cuda = *codegen::ParseTarget("cuda -arch=sm_90");
  ConfigSpace space;
  ASSERT_TRUE(t->DefineSpace(w, cuda, &space).ok());
  auto ref = RunConfig(*t, w, cuda, nullptr, 5);
  ASSERT_TRUE(ref.ok()) << ref.status();
  int checked = 0;
  for (int64_t i = 0; i < space.size(); ++i) {
    auto cfg = space.Get(i);
    ASSERT_TRUE(cfg.ok());
    auto out = RunConfig(*t, w, cuda, &*cfg, 5);
    ASSERT_TRUE(out.ok()) << cfg->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0) << cfg->ToJson();
    ++checked;
  }
  EXPECT_EQ(checked, 10);
}

TEST(GpuTemplates, CpuLayoutTemplates_RejectCudaTargets) {
  codegen::Target cuda = *codegen::ParseTarget("cuda -arch=sm_90");
  for (const char* name : {"conv2d_nchwc", "conv2d_nchwc_packed"}) {
    auto t = *FindTemplate(name);
    auto w = *t->MakeWorkload({1, 32, 8, 8, 32, 3, 3, 1, 1}, ir::DataType::Float(32));
    ConfigSpace space;
    absl::Status s = t->DefineSpace(w, cuda, &space);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_NE(s.message().find("use conv2d"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace tunefarm::tuner
