// The generated GPU spaces at the shapes the benchmarks use: random configs that pass the GPU
// verifier build to PTX for sm_80 and sm_90, and assemble with ptxas where the CUDA toolkit is
// installed (deploy/gpu_check.sh on a GPU machine; elsewhere only the build is checked).
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/tests/ptxas.h"
#include "gtest/gtest.h"
#include "tuner/generated/generated_template.h"
#include "tuner/generated/program_template.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_testing.h"

namespace tunefarm::tuner {
namespace {

struct ProgramCase {
  std::string file;
  absl::flat_hash_map<std::string, int64_t> shapes;
};

class GpuSpacePtxasTest : public ::testing::TestWithParam<ProgramCase> {};

TEST_P(GpuSpacePtxasTest, RandomConfigs_Assemble) {
  absl::StatusOr<std::string> ptxas = testing::FindPtxas();
  const ProgramCase& c = GetParam();
  std::ifstream in("examples/programs/" + c.file + ".te");
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::shared_ptr<const ProgramTemplate>> t =
      ProgramTemplate::Create(c.file, text.str());
  ASSERT_TRUE(t.ok()) << t.status();
  absl::StatusOr<std::vector<int64_t>> args = (*t)->ArgsFor(c.shapes);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Workload> w = (*t)->MakeWorkload(*args, *(*t)->OutputType(*args));
  ASSERT_TRUE(w.ok()) << w.status();
  absl::StatusOr<int> assembled = AssembleRandomGpuConfigs(**t, *w, ptxas.ok() ? *ptxas : "", 4);
  ASSERT_TRUE(assembled.ok()) << assembled.status();
  EXPECT_EQ(*assembled, 8);
}

INSTANTIATE_TEST_SUITE_P(
    Examples, GpuSpacePtxasTest,
    ::testing::Values(ProgramCase{"dense_bias_gelu", {{"M", 128}, {"N", 3072}, {"K", 768}}},
                      ProgramCase{"conv2d_bias_relu",
                                  {{"N", 1}, {"C", 64}, {"H", 56}, {"W", 56}, {"F", 64}}},
                      ProgramCase{"layer_norm", {{"N", 128}, {"D", 768}}},
                      ProgramCase{"attention_softmax", {{"Hd", 12}, {"L", 128}, {"D", 64}}},
                      ProgramCase{"max_pool", {{"N", 1}, {"C", 64}, {"H", 112}, {"W", 112}}},
                      ProgramCase{"global_avg_pool", {{"N", 1}, {"C", 512}, {"H", 7}, {"W", 7}}},
                      ProgramCase{"stencil5", {{"H", 1024}, {"W", 1024}}},
                      ProgramCase{"int8_gemm", {{"M", 128}, {"N", 768}, {"K", 768}}}),
    [](const auto& info) { return info.param.file; });

TEST(GpuSpacePtxas, GeneratedDense_Assembles) {
  absl::StatusOr<std::string> ptxas = testing::FindPtxas();
  std::shared_ptr<const Template> t = WithGeneratedSpace(*FindTemplate("dense"));
  absl::StatusOr<Workload> w = t->MakeWorkload({1024, 1024, 1024}, ir::DataType::Float(32));
  ASSERT_TRUE(w.ok()) << w.status();
  absl::StatusOr<int> assembled = AssembleRandomGpuConfigs(*t, *w, ptxas.ok() ? *ptxas : "", 4);
  ASSERT_TRUE(assembled.ok()) << assembled.status();
  EXPECT_EQ(*assembled, 8);
}

}  // namespace
}  // namespace tunefarm::tuner
