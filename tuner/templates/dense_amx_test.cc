// dense_u8s8_amx: random configs of its space build for an AMX CPU on any machine (the tile
// instructions in the object), and where this machine has AMX-INT8 they run and match the
// plain reduction exactly (integers).
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

const Template& Amx() {
  auto t = FindTemplate("dense_u8s8_amx");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

codegen::Target AmxTarget() {
  auto target = codegen::ParseTarget("llvm -mcpu=sapphirerapids");
  EXPECT_TRUE(target.ok()) << target.status();
  return *target;
}

TEST(DenseAmxTest, Shapes_RefusedWithReason) {
  EXPECT_EQ(Amx().MakeWorkload({32, 40, 128}, ir::DataType::Int(8)).status().code(),
            absl::StatusCode::kInvalidArgument);  // N not a multiple of 16
  EXPECT_EQ(Amx().MakeWorkload({32, 32, 96}, ir::DataType::Int(8)).status().code(),
            absl::StatusCode::kInvalidArgument);  // K not a multiple of 64
  EXPECT_EQ(Amx().MakeWorkload({32, 32, 64}, ir::DataType::Float(32)).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto w = Amx().MakeWorkload({32, 32, 64}, ir::DataType::Int(8));
  ASSERT_TRUE(w.ok()) << w.status();
  ConfigSpace space;
  auto znver = codegen::ParseTarget("llvm -mcpu=znver4");
  ASSERT_TRUE(znver.ok());
  const absl::Status s = Amx().DefineSpace(*w, *znver, &space);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("AMX-INT8"), std::string::npos) << s;
  // A prime M has no block of 2..32 rows.
  auto prime = Amx().MakeWorkload({37, 32, 64}, ir::DataType::Int(8));
  ASSERT_TRUE(prime.ok());
  ConfigSpace none;
  EXPECT_EQ(Amx().DefineSpace(*prime, AmxTarget(), &none).code(),
            absl::StatusCode::kInvalidArgument);
}

// Every config builds to an object for sapphirerapids with tile instructions in it.
TEST(DenseAmxTest, RandomConfigs_BuildForAnAmxCpu) {
  auto w = Amx().MakeWorkload({48, 64, 256}, ir::DataType::Int(8));
  ASSERT_TRUE(w.ok()) << w.status();
  ConfigSpace space;
  ASSERT_TRUE(Amx().DefineSpace(*w, AmxTarget(), &space).ok());
  std::mt19937_64 rng(3);
  for (int i = 0; i < 6; ++i) {
    auto cfg = space.Get(static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size())));
    ASSERT_TRUE(cfg.ok());
    auto inst = Amx().Instantiate(*w, AmxTarget(), &*cfg);
    ASSERT_TRUE(inst.ok()) << cfg->ToJson() << ": " << inst.status();
    auto f = lower::Lower(*inst->sch, inst->args, "kernel");
    ASSERT_TRUE(f.ok()) << f.status();
    auto asm_text = codegen::BuildAssembly({*f}, AmxTarget());
    ASSERT_TRUE(asm_text.ok()) << cfg->ToJson() << ": " << asm_text.status();
    EXPECT_NE(asm_text->find("tdpbusd"), std::string::npos) << cfg->ToJson();
    EXPECT_NE(asm_text->find("ldtilecfg"), std::string::npos) << cfg->ToJson();
  }
}

// Where this machine has AMX-INT8: random configs, tails of rows (M = 40: blocks of 20, 40
// rows...) and several reduction steps, against the plain reduction.
TEST(DenseAmxTest, RandomConfigs_MatchReferenceOnThisMachine) {
  const codegen::Target host = codegen::HostTarget();
  if (!codegen::TargetHasFeature(host, "amx-int8")) {
    GTEST_SKIP() << "this CPU has no AMX-INT8 (" << host.str << ")";
  }
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{40, 96, 256}, std::vector<int64_t>{64, 32, 128}}) {
    auto w = Amx().MakeWorkload(shape, ir::DataType::Int(8));
    ASSERT_TRUE(w.ok()) << w.status();
    ConfigSpace space;
    ASSERT_TRUE(Amx().DefineSpace(*w, host, &space).ok());
    auto ref = RunConfig(Amx(), *w, host, nullptr, 5);
    ASSERT_TRUE(ref.ok()) << ref.status();
    std::mt19937_64 rng(11);
    for (int i = 0; i < 10; ++i) {
      auto cfg = space.Get(static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size())));
      ASSERT_TRUE(cfg.ok());
      auto out = RunConfig(Amx(), *w, host, &*cfg, 5);
      ASSERT_TRUE(out.ok()) << cfg->ToJson() << ": " << out.status();
      EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-9, 1e-9), 1.0) << cfg->ToJson();
    }
  }
}

}  // namespace
}  // namespace tunefarm::tuner
