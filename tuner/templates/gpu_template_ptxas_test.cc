// PTX of every CUDA template (random configs that pass the GPU verifier) assembles with ptxas
// for sm_80 and sm_90. Skips, saying why, without the CUDA toolkit.
#include "absl/strings/str_cat.h"
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
  absl::StatusOr<int> assembled = AssembleRandomGpuConfigs(*t, *w, *ptxas, 4);
  ASSERT_TRUE(assembled.ok()) << assembled.status();
  EXPECT_EQ(*assembled, 8);
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
