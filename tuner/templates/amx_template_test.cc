// The AMX templates (dense_u8s8_amx, conv2d_u8s8_amx): random configs of their spaces build
// for an AMX CPU on any machine (the tile instructions in the object), and where this machine
// has AMX-INT8 they run and match the plain reduction exactly (integers). Shapes with row
// tails (a block of 20 rows is a tile of 16 and one of 4), several reduction steps, padding,
// stride 2 and a 1×1 convolution.
#include <random>

#include "compiler/codegen/build.h"
#include "compiler/codegen/target.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_testing.h"

namespace tunefarm::tuner {
namespace {

const Template& Find(const std::string& name) {
  auto t = FindTemplate(name);
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

codegen::Target AmxTarget() {
  auto target = codegen::ParseTarget("llvm -mcpu=sapphirerapids");
  EXPECT_TRUE(target.ok()) << target.status();
  return *target;
}

absl::StatusCode WorkloadCode(const std::string& name, const std::vector<int64_t>& args,
                              ir::DataType dtype = ir::DataType::Int(8)) {
  return Find(name).MakeWorkload(args, dtype).status().code();
}

TEST(AmxTemplateTest, Shapes_RefusedWithReason) {
  const auto kBad = absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(WorkloadCode("dense_u8s8_amx", {32, 40, 128}), kBad);  // N % 16
  EXPECT_EQ(WorkloadCode("dense_u8s8_amx", {32, 32, 96}), kBad);   // K % 64
  EXPECT_EQ(WorkloadCode("dense_u8s8_amx", {32, 32, 64}, ir::DataType::Float(32)), kBad);
  EXPECT_EQ(WorkloadCode("conv2d_u8s8_amx", {1, 48, 8, 8, 16, 3, 3, 1, 1}), kBad);  // C % 64
  EXPECT_EQ(WorkloadCode("conv2d_u8s8_amx", {1, 64, 8, 8, 24, 3, 3, 1, 1}), kBad);  // K % 16
  EXPECT_EQ(WorkloadCode("conv2d_u8s8_amx", {1, 64, 2, 2, 16, 5, 5, 1, 0}), kBad);  // window
  for (const auto& [name, args] :
       {std::pair<std::string, std::vector<int64_t>>{"dense_u8s8_amx", {32, 32, 64}},
        {"conv2d_u8s8_amx", {1, 64, 8, 8, 16, 3, 3, 1, 1}}}) {
    auto w = Find(name).MakeWorkload(args, ir::DataType::Int(8));
    ASSERT_TRUE(w.ok()) << w.status();
    ConfigSpace space;
    auto znver = codegen::ParseTarget("llvm -mcpu=znver4");
    ASSERT_TRUE(znver.ok());
    const absl::Status s = Find(name).DefineSpace(*w, *znver, &space);
    EXPECT_EQ(s.code(), kBad) << name;
    EXPECT_NE(s.message().find("AMX-INT8"), std::string::npos) << s;
  }
  // No block of rows (up to 32, at least 8): a prime M, a prime output width.
  for (const auto& [name, args] :
       {std::pair<std::string, std::vector<int64_t>>{"dense_u8s8_amx", {37, 32, 64}},
        {"conv2d_u8s8_amx", {1, 64, 4, 37, 16, 1, 1, 1, 0}}}) {
    auto w = Find(name).MakeWorkload(args, ir::DataType::Int(8));
    ASSERT_TRUE(w.ok()) << w.status();
    ConfigSpace none;
    EXPECT_EQ(Find(name).DefineSpace(*w, AmxTarget(), &none).code(), kBad) << name;
  }
}

struct AmxCase {
  std::string name;
  std::vector<int64_t> args;
};

class AmxConfigsTest : public ::testing::TestWithParam<AmxCase> {};

// Every config builds to an object for sapphirerapids with tile instructions in it.
TEST_P(AmxConfigsTest, RandomConfigs_BuildForAnAmxCpu) {
  const Template& t = Find(GetParam().name);
  auto w = t.MakeWorkload(GetParam().args, ir::DataType::Int(8));
  ASSERT_TRUE(w.ok()) << w.status();
  ConfigSpace space;
  ASSERT_TRUE(t.DefineSpace(*w, AmxTarget(), &space).ok());
  std::mt19937_64 rng(3);
  for (int i = 0; i < 6; ++i) {
    auto cfg = space.Get(static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size())));
    ASSERT_TRUE(cfg.ok());
    auto asm_text = ConfigAssembly(t, *w, AmxTarget(), *cfg);
    ASSERT_TRUE(asm_text.ok()) << cfg->ToJson() << ": " << asm_text.status();
    EXPECT_NE(asm_text->find("tdpbusd"), std::string::npos) << cfg->ToJson();
    EXPECT_NE(asm_text->find("ldtilecfg"), std::string::npos) << cfg->ToJson();
  }
}

// Where this machine has AMX-INT8: random configs against the plain reduction.
TEST_P(AmxConfigsTest, RandomConfigs_MatchReferenceOnThisMachine) {
  const codegen::Target host = codegen::HostTarget();
  if (!codegen::TargetHasFeature(host, "amx-int8")) {
    GTEST_SKIP() << "this CPU has no AMX-INT8 (" << host.str << ")";
  }
  const Template& t = Find(GetParam().name);
  auto w = t.MakeWorkload(GetParam().args, ir::DataType::Int(8));
  ASSERT_TRUE(w.ok()) << w.status();
  ConfigSpace space;
  ASSERT_TRUE(t.DefineSpace(*w, host, &space).ok());
  auto ref = RunConfig(t, *w, host, nullptr, 5);
  ASSERT_TRUE(ref.ok()) << ref.status();
  std::mt19937_64 rng(11);
  for (int i = 0; i < 10; ++i) {
    auto cfg = space.Get(static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size())));
    ASSERT_TRUE(cfg.ok());
    auto out = RunConfig(t, *w, host, &*cfg, 5);
    ASSERT_TRUE(out.ok()) << cfg->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-9, 1e-9), 1.0) << cfg->ToJson();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AmxConfigsTest,
    ::testing::Values(AmxCase{"dense_u8s8_amx", {40, 96, 256}},
                      AmxCase{"dense_u8s8_amx", {64, 32, 128}},
                      AmxCase{"conv2d_u8s8_amx", {1, 64, 6, 10, 32, 3, 3, 1, 1}},
                      AmxCase{"conv2d_u8s8_amx", {2, 128, 5, 9, 16, 1, 1, 1, 0}},
                      AmxCase{"conv2d_u8s8_amx", {1, 64, 9, 12, 48, 3, 3, 2, 1}}),
    [](const ::testing::TestParamInfo<AmxCase>& info) {
      return absl::StrCat(info.param.name, "_", info.index);
    });

}  // namespace
}  // namespace tunefarm::tuner
