// PTX of every CUDA template (random configs that pass the GPU verifier) assembles with ptxas
// for sm_80 and sm_90. Skips, saying why, without the CUDA toolkit.
#include <random>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/codegen_nvptx.h"
#include "compiler/lower/lower.h"
#include "compiler/tests/ptxas.h"
#include "gtest/gtest.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_testing.h"

namespace tunefarm::tuner {
namespace {

using Case = TemplateCase;

class GpuTemplatePtxasTest : public ::testing::TestWithParam<Case> {};

TEST_P(GpuTemplatePtxasTest, RandomConfigs_Assemble) {
  auto ptxas = testing::FindPtxas();
  if (!ptxas.ok()) GTEST_SKIP() << ptxas.status().message();
  const Case& c = GetParam();
  auto t = *FindTemplate(c.name);
  auto w = t->MakeWorkload(c.args, *ir::ParseDataType(c.dtype));
  ASSERT_TRUE(w.ok()) << w.status();
  int assembled = 0;
  for (const char* arch : {"sm_80", "sm_90"}) {
    codegen::Target cuda = *codegen::ParseTarget(absl::StrCat("cuda -arch=", arch));
    ConfigSpace space;
    ASSERT_TRUE(t->DefineSpace(*w, cuda, &space).ok());
    std::mt19937_64 rng(11);
    for (int tries = 0, built = 0; built < 4 && tries < 40; ++tries) {
      auto cfg = space.Get(static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size())));
      auto inst = t->Instantiate(*w, cuda, &*cfg);
      ASSERT_TRUE(inst.ok()) << inst.status();
      auto f = lower::Lower(*inst->sch, inst->args, "tunefarm_kernel");
      ASSERT_TRUE(f.ok()) << f.status();
      auto k = codegen::BuildGpuKernel(*f, cuda);
      if (k.status().code() == absl::StatusCode::kFailedPrecondition) continue;
      ASSERT_TRUE(k.ok()) << k.status();
      absl::Status s = testing::AssemblePtx(*ptxas, k->ptx, arch);
      EXPECT_TRUE(s.ok()) << cfg->ToJson() << ": " << s;
      ++built;
      ++assembled;
    }
  }
  EXPECT_EQ(assembled, 8);
}

INSTANTIATE_TEST_SUITE_P(
    CudaTemplates, GpuTemplatePtxasTest,
    ::testing::Values(Case{"dense", {1024, 1024, 1024}}, Case{"dense", {512, 16, 512}, "float16"},
                      Case{"dense_splitk", {512, 16, 512}}, Case{"dense_splitk", {1024, 32, 512}},
                      Case{"dense_tensorcore", {1024, 1024, 1024}, "float16"},
                      Case{"batch_matmul_tensorcore", {8, 128, 128, 64}, "float16"},
                      Case{"dense_tensorcore", {512, 16, 512}, "float16"},
                      Case{"batch_matmul", {4, 64, 64, 64}},
                      Case{"conv2d", {1, 64, 56, 56, 64, 3, 3, 1, 1}},
                      Case{"depthwise_conv2d", {1, 32, 112, 112, 3, 3, 1, 1}},
                      Case{"softmax", {4096, 1000}}, Case{"bias_relu", {1024, 4096}}),
    [](const auto& info) { return TemplateCaseName(info.param, info.index); });

}  // namespace
}  // namespace tunefarm::tuner
