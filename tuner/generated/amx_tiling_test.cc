// The AMX rule of the generated space (amx_tiling.h): which programs and targets get it, and
// that its configs build for an AMX CPU on any machine and, where this machine has AMX-INT8,
// run and match the unscheduled program exactly (integers).
#include <fstream>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "compiler/codegen/amx_nest.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/target.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"
#include "tuner/generated/program_template.h"
#include "tuner/templates/template_testing.h"

namespace tunefarm::tuner {
namespace {

using Shapes = absl::flat_hash_map<std::string, int64_t>;

std::string ReadExample(const std::string& name) {
  std::ifstream in("examples/programs/" + name + ".te");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

codegen::Target Target(const std::string& s) {
  absl::StatusOr<codegen::Target> t = codegen::ParseTarget(s);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : codegen::HostTarget();
}

codegen::Target AmxTarget() { return Target("llvm -mcpu=sapphirerapids"); }

struct Program {
  std::shared_ptr<const ProgramTemplate> tmpl;
  Workload workload;
};

Program MakeProgram(const std::string& name, const std::string& text, const Shapes& shapes) {
  absl::StatusOr<std::shared_ptr<const ProgramTemplate>> t = ProgramTemplate::Create(name, text);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return {};
  absl::StatusOr<std::vector<int64_t>> args = (*t)->ArgsFor(shapes);
  EXPECT_TRUE(args.ok()) << args.status();
  if (!args.ok()) return {};
  absl::StatusOr<Workload> w = (*t)->MakeWorkload(*args, ir::DataType::Int(32));
  EXPECT_TRUE(w.ok()) << w.status();
  if (!w.ok()) return {};
  return {*t, *w};
}

// Whether the program's space on `target` is the AMX rule's (its knobs "<output>.amx_...").
bool HasAmxSpace(const Program& p, const codegen::Target& target) {
  EXPECT_NE(p.tmpl, nullptr);
  if (p.tmpl == nullptr) return false;
  ConfigSpace space;
  const absl::Status s = p.tmpl->DefineSpace(p.workload, target, &space);
  EXPECT_TRUE(s.ok()) << s;
  return absl::StrContains(space.Describe(), ".amx_block");
}

// A dense layer whose weight is [N][K/4][4]: groups of four inputs, but a column of W is K
// bytes from the next, not the 4 bytes of the VNNI layout tdpbusd reads.
constexpr char kRowMajorGroups[] = R"(A = input(uint8, [M, K])
W = weight(int8, [N, K / 4, 4])
C[i, j < N] = sum(k < K / 4: int32(A[i, 4 * k]) * int32(W[j, k, 0]) + int32(A[i, 4 * k + 1]) * int32(W[j, k, 1]) + int32(A[i, 4 * k + 2]) * int32(W[j, k, 2]) + int32(A[i, 4 * k + 3]) * int32(W[j, k, 3]))
)";

// A row tail (40 rows: blocks of 20 are a tile of 16 and one of 4); a padded 3×3 convolution.
const Shapes kDense = {{"M", 40}, {"N", 96}, {"K", 256}};
const Shapes kConv3x3 = {{"N", 1}, {"H", 6}, {"W", 10}, {"C", 64}, {"F", 32},
                         {"R", 3}, {"S", 3}, {"St", 1}, {"Pd", 1}};

TEST(AmxTiling, VnniLayoutPrograms_GetTilesOnAnAmxTargetOnly) {
  const Program dense = MakeProgram("dense_u8s8_vnni", ReadExample("dense_u8s8_vnni"), kDense);
  const Program conv = MakeProgram("conv2d_u8s8_nhwc", ReadExample("conv2d_u8s8_nhwc"), kConv3x3);
  for (const Program* p : {&dense, &conv}) {
    ASSERT_NE(p->tmpl, nullptr);
    EXPECT_TRUE(HasAmxSpace(*p, AmxTarget())) << p->workload.ToString();
    // No AMX: the vector rules (VNNI).
    EXPECT_FALSE(HasAmxSpace(*p, Target("llvm -mcpu=znver4"))) << p->workload.ToString();
    EXPECT_FALSE(HasAmxSpace(*p, Target("llvm -mcpu=sapphirerapids -mattr=-amx-int8")))
        << p->workload.ToString();
    EXPECT_FALSE(HasAmxSpace(*p, Target("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1")))
        << p->workload.ToString();
  }
}

TEST(AmxTiling, ShapesAndLayoutsTheTilesCannotRead_GetTheVectorRules) {
  // Groups of four inputs that are not a multiple of 16 (K = 24: 6 groups).
  EXPECT_FALSE(HasAmxSpace(MakeProgram("dense_u8s8_vnni", ReadExample("dense_u8s8_vnni"),
                                       {{"M", 32}, {"N", 48}, {"K", 24}}),
                           AmxTarget()));
  // A prime number of rows: no block of them.
  EXPECT_FALSE(HasAmxSpace(MakeProgram("dense_u8s8_vnni", ReadExample("dense_u8s8_vnni"),
                                       {{"M", 37}, {"N", 32}, {"K", 64}}),
                           AmxTarget()));
  // One product per term (no groups of four inputs).
  EXPECT_FALSE(HasAmxSpace(
      MakeProgram("dense_u8s8", ReadExample("dense_u8s8"), {{"M", 32}, {"N", 32}, {"K", 64}}),
      AmxTarget()));
  // The rule matches, the compiler refuses the nest (W's columns 64 bytes apart): the space
  // checks with the compiler first.
  EXPECT_FALSE(HasAmxSpace(
      MakeProgram("row_major_groups", kRowMajorGroups, {{"M", 32}, {"N", 32}, {"K", 64}}),
      AmxTarget()));
}

struct AmxProgramCase {
  std::string file;
  Shapes shapes;
};

// gtest prints a failing case's parameter: the program and its shapes, not its bytes.
void PrintTo(const AmxProgramCase& c, std::ostream* os) {
  *os << c.file;
  for (const auto& [name, value] : c.shapes) *os << " " << name << "=" << value;
}

class AmxProgramTest : public ::testing::TestWithParam<AmxProgramCase> {};

// On any machine: every config of the space lowers for sapphirerapids to nests the code
// generator accepts, and random ones build to objects with the tile instructions in them.
TEST_P(AmxProgramTest, EveryConfig_LowersToAcceptedNests_RandomOnesBuild) {
  const Program p = MakeProgram(GetParam().file, ReadExample(GetParam().file), GetParam().shapes);
  ASSERT_NE(p.tmpl, nullptr);
  ConfigSpace space;
  ASSERT_TRUE(p.tmpl->DefineSpace(p.workload, AmxTarget(), &space).ok());
  ASSERT_TRUE(absl::StrContains(space.Describe(), ".amx_block")) << space.Describe();
  ASSERT_LE(space.size(), 2000) << space.Describe();
  for (int64_t i = 0; i < space.size(); ++i) {
    auto cfg = space.Get(i);
    ASSERT_TRUE(cfg.ok());
    auto inst = p.tmpl->Instantiate(p.workload, AmxTarget(), &*cfg);
    ASSERT_TRUE(inst.ok()) << cfg->ToJson() << ": " << inst.status();
    auto f = lower::Lower(*inst->sch, inst->args, "kernel");
    ASSERT_TRUE(f.ok()) << cfg->ToJson() << ": " << f.status();
    const std::vector<const ir::ForNode*> loops = codegen::FindAmxLoops(f->body);
    ASSERT_FALSE(loops.empty()) << cfg->ToJson();
    for (const ir::ForNode* loop : loops) {
      auto nest = codegen::MatchAmxNest(loop);
      ASSERT_TRUE(nest.ok()) << cfg->ToJson() << ": " << nest.status();
    }
  }
  std::mt19937_64 rng(5);
  for (int i = 0; i < 6; ++i) {
    auto cfg = space.Get(static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size())));
    ASSERT_TRUE(cfg.ok());
    auto asm_text = ConfigAssembly(*p.tmpl, p.workload, AmxTarget(), *cfg);
    ASSERT_TRUE(asm_text.ok()) << cfg->ToJson() << ": " << asm_text.status();
    EXPECT_NE(asm_text->find("tdpbusd"), std::string::npos) << cfg->ToJson();
  }
}

// Where this machine has AMX-INT8: every config of a spread over the space against the
// unscheduled program, exactly.
TEST_P(AmxProgramTest, Configs_MatchUnscheduledProgramOnThisMachine) {
  const codegen::Target host = codegen::HostTarget();
  if (!codegen::TargetHasFeature(host, "amx-int8")) {
    GTEST_SKIP() << "this CPU has no AMX-INT8 (" << host.str << ")";
  }
  const Program p = MakeProgram(GetParam().file, ReadExample(GetParam().file), GetParam().shapes);
  ASSERT_NE(p.tmpl, nullptr);
  ConfigSpace space;
  ASSERT_TRUE(p.tmpl->DefineSpace(p.workload, host, &space).ok());
  ASSERT_TRUE(absl::StrContains(space.Describe(), ".amx_block")) << space.Describe();
  auto ref = RunConfig(*p.tmpl, p.workload, host, nullptr, 7);
  ASSERT_TRUE(ref.ok()) << ref.status();
  const int64_t configs = std::min<int64_t>(space.size(), 10);
  for (int64_t i = 0; i < configs; ++i) {
    auto cfg = space.Get(configs == 1 ? 0 : (space.size() - 1) / (configs - 1) * i);
    ASSERT_TRUE(cfg.ok());
    auto out = RunConfig(*p.tmpl, p.workload, host, &*cfg, 7);
    ASSERT_TRUE(out.ok()) << cfg->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-9, 1e-9), 1.0) << cfg->ToJson();
  }
}

// Row tails (40 rows: blocks of 20 are a tile of 16 and one of 4), several reduction steps
// per nest or steps outside it (K = 512: 8 steps), padding, a 3×3 window inside the nest or,
// with some steps, outside it (128 channels: 2 steps), stride 2, a 1×1 with a batch, and a
// 17×17 window (289 taps, over a nest's 256 steps: always outside it).
INSTANTIATE_TEST_SUITE_P(Shapes, AmxProgramTest,
                         ::testing::Values(AmxProgramCase{"dense_u8s8_vnni", kDense},
                                           AmxProgramCase{"dense_u8s8_vnni",
                                                          {{"M", 16}, {"N", 32}, {"K", 512}}},
                                           AmxProgramCase{"conv2d_u8s8_nhwc", kConv3x3},
                                           AmxProgramCase{"conv2d_u8s8_nhwc",
                                                          {{"N", 1},
                                                           {"H", 4},
                                                           {"W", 8},
                                                           {"C", 128},
                                                           {"F", 16},
                                                           {"R", 3},
                                                           {"S", 3},
                                                           {"St", 1},
                                                           {"Pd", 1}}},
                                           AmxProgramCase{"conv2d_u8s8_nhwc",
                                                          {{"N", 1},
                                                           {"H", 17},
                                                           {"W", 24},
                                                           {"C", 64},
                                                           {"F", 16},
                                                           {"R", 17},
                                                           {"S", 17},
                                                           {"St", 1},
                                                           {"Pd", 0}}},
                                           AmxProgramCase{"conv2d_u8s8_nhwc",
                                                          {{"N", 1},
                                                           {"H", 9},
                                                           {"W", 12},
                                                           {"C", 64},
                                                           {"F", 48},
                                                           {"R", 3},
                                                           {"S", 3},
                                                           {"St", 2},
                                                           {"Pd", 1}}},
                                           AmxProgramCase{"conv2d_u8s8_nhwc",
                                                          {{"N", 2},
                                                           {"H", 5},
                                                           {"W", 9},
                                                           {"C", 128},
                                                           {"F", 16},
                                                           {"R", 1},
                                                           {"S", 1},
                                                           {"St", 1},
                                                           {"Pd", 0}}}),
                         [](const ::testing::TestParamInfo<AmxProgramCase>& info) {
                           return absl::StrCat(info.param.file, "_", info.index);
                         });

}  // namespace
}  // namespace tunefarm::tuner
