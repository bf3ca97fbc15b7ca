// Every generated space must be correct at every point: random configs of each example
// program (and of the templates' operators under --space generated) are built, run and
// compared with the unscheduled program, on the host and, for cuda, built to PTX and run by
// host emulation.
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/codegen_nvptx.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"
#include "tuner/generated/generated_template.h"
#include "tuner/generated/program_template.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_testing.h"

namespace tunefarm::tuner {
namespace {

constexpr int kConfigsPerSpace = 6;

std::string ReadExample(const std::string& name) {
  std::ifstream in("examples/programs/" + name + ".te");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Shapes chosen so no tile divides them evenly.
struct ProgramCase {
  std::string file;
  absl::flat_hash_map<std::string, int64_t> shapes;
};

const std::vector<ProgramCase>& ProgramCases() {
  static const auto* cases = new std::vector<ProgramCase>{
      {"dense", {{"M", 13}, {"N", 37}, {"K", 21}}},
      {"dense_bias_relu", {{"M", 9}, {"N", 35}, {"K", 19}}},
      {"dense_bias_gelu", {{"M", 5}, {"N", 33}, {"K", 17}}},
      {"batch_matmul", {{"B", 2}, {"M", 7}, {"N", 19}, {"K", 11}}},
      {"layer_norm", {{"N", 6}, {"D", 45}}},
      {"max_pool", {{"N", 1}, {"C", 3}, {"H", 15}, {"W", 12}}},
      {"global_avg_pool", {{"N", 2}, {"C", 5}, {"H", 7}, {"W", 6}}},
      {"conv2d_bias_relu", {{"N", 1}, {"C", 3}, {"H", 9}, {"W", 7}, {"F", 5}}},
      {"depthwise_conv2d", {{"N", 1}, {"C", 5}, {"H", 10}, {"W", 9}}},
      {"attention_softmax", {{"Hd", 2}, {"L", 9}, {"D", 8}}},
      {"stencil5", {{"H", 11}, {"W", 29}}},
      {"int8_gemm", {{"M", 5}, {"N", 19}, {"K", 30}}},
      {"dense_u8s8", {{"M", 3}, {"N", 21}, {"K", 37}}},
      {"conv2d_u8s8", {{"N", 1}, {"C", 3}, {"H", 6}, {"W", 9}, {"F", 4}}},
      {"dense_layer", {{"M", 1}, {"N", 19}, {"K", 33}}},
      {"dense_pairs", {{"M", 7}, {"N", 24}, {"K", 26}}},
      {"dense_u8s8_vnni", {{"M", 5}, {"N", 48}, {"K", 24}}},
      {"dense_u8s8_avx2", {{"M", 5}, {"N", 48}, {"K", 24}}},
      {"conv2d_u8s8_vnni", {{"N", 1}, {"C", 1}, {"H", 5}, {"W", 6}, {"F", 2}}},
      {"conv2d_u8s8_avx2", {{"N", 1}, {"C", 1}, {"H", 5}, {"W", 6}, {"F", 2}}},
      // Eight channels: the vector rules on every CPU (AMX reads 64; amx_tiling_test).
      {"conv2d_u8s8_nhwc",
       {{"N", 1},
        {"H", 5},
        {"W", 7},
        {"C", 8},
        {"F", 16},
        {"R", 3},
        {"S", 2},
        {"St", 2},
        {"Pd", 1}}},
      {"conv2d_blocked",
       {{"N", 1},
        {"C", 2},
        {"CB", 3},
        {"H", 7},
        {"W", 6},
        {"F", 2},
        {"FB", 5},
        {"R", 3},
        {"S", 2},
        {"St", 2},
        {"Pd", 1}}},
      {"conv2d_nhwc",
       {{"N", 1},
        {"H", 7},
        {"W", 6},
        {"C", 5},
        {"F", 19},
        {"R", 3},
        {"S", 2},
        {"St", 2},
        {"Pd", 1}}},
      {"depthwise_blocked",
       {{"N", 1}, {"C", 1}, {"H", 9}, {"W", 7}, {"R", 3}, {"S", 3}, {"St", 2}, {"Pd", 1}}},
      {"max_pool_nchwc", {{"N", 1}, {"C", 2}, {"H", 13}, {"W", 10}}},
      {"global_avg_pool_nchwc", {{"N", 2}, {"C", 3}, {"H", 5}, {"W", 3}}},
      {"conv2d_bias_relu_nchwc", {{"N", 1}, {"C", 2}, {"H", 7}, {"W", 5}, {"F", 3}}},
      {"conv2d_nchwc", {{"N", 1}, {"C", 16}, {"H", 5}, {"W", 7}, {"F", 32}}},
      {"conv2d_winograd", {{"N", 1}, {"C", 1}, {"H", 7}, {"W", 6}, {"F", 2}}},
      {"conv2d_winograd_f2", {{"N", 1}, {"C", 2}, {"H", 5}, {"W", 6}, {"F", 1}}},
  };
  return *cases;
}

// Builds kConfigsPerSpace configs spread over the space (the first, the last and evenly in
// between) for `target` and checks each against the unscheduled program. For a cuda target
// each kernel is built to PTX and run by host emulation; the GPU verifier may refuse a config
// beyond the GPU's limits (more than 1,024 threads, 48 KB of shared memory), a minority.
void CheckSpace(const Template& t, const Workload& w,
                const codegen::Target& target = codegen::HostTarget()) {
  ConfigSpace space;
  absl::Status defined = t.DefineSpace(w, target, &space);
  ASSERT_TRUE(defined.ok()) << w.ToString() << ": " << defined;
  ASSERT_GT(space.size(), 1) << space.Describe();
  absl::StatusOr<std::vector<runtime::NDArray>> ref =
      RunConfig(t, w, codegen::HostTarget(), nullptr, 11);
  ASSERT_TRUE(ref.ok()) << ref.status();
  int refused = 0;
  for (int i = 0; i < kConfigsPerSpace; ++i) {
    const int64_t index = (space.size() - 1) / (kConfigsPerSpace - 1) * i;
    absl::StatusOr<Config> config = space.Get(index);
    ASSERT_TRUE(config.ok());
    absl::StatusOr<std::vector<runtime::NDArray>> out = RunConfig(t, w, target, &*config, 11);
    if (target.kind == codegen::Target::Kind::kCUDA &&
        out.status().code() == absl::StatusCode::kFailedPrecondition) {
      ++refused;
      continue;
    }
    ASSERT_TRUE(out.ok()) << w.ToString() << " " << config->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0)
        << w.ToString() << " " << config->ToJson();
  }
  EXPECT_LE(refused * 2, kConfigsPerSpace) << w.ToString() << ": " << refused << " refused";
}

// An example program bound to its case's shapes (float32, unless the program says otherwise).
struct ExampleWorkload {
  std::shared_ptr<const ProgramTemplate> tmpl;
  Workload workload;
};
ExampleWorkload MakeExampleWorkload(const ProgramCase& c) {
  const std::string text = ReadExample(c.file);
  EXPECT_FALSE(text.empty()) << c.file;
  absl::StatusOr<std::shared_ptr<const ProgramTemplate>> t = ProgramTemplate::Create(c.file, text);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return {};
  absl::StatusOr<std::vector<int64_t>> args = (*t)->ArgsFor(c.shapes);
  EXPECT_TRUE(args.ok()) << args.status();
  if (!args.ok()) return {};
  absl::StatusOr<ir::DataType> dtype = (*t)->OutputType(*args);
  EXPECT_TRUE(dtype.ok()) << dtype.status();
  if (!dtype.ok()) return {};
  absl::StatusOr<Workload> w = (*t)->MakeWorkload(*args, *dtype);
  EXPECT_TRUE(w.ok()) << w.status();
  if (!w.ok()) return {};
  return {*t, *w};
}

std::string ProgramCaseName(const ::testing::TestParamInfo<int>& info) {
  return ProgramCases()[info.param].file;
}

class ProgramSpaceTest : public ::testing::TestWithParam<int> {};

TEST_P(ProgramSpaceTest, RandomConfigs_MatchUnscheduledProgram) {
  const ProgramCase& c = ProgramCases()[GetParam()];
  ExampleWorkload e = MakeExampleWorkload(c);
  ASSERT_NE(e.tmpl, nullptr);
  EXPECT_TRUE(absl::StartsWith(e.workload.template_name, absl::StrCat("expr:", c.file, ":")));
  CheckSpace(*e.tmpl, e.workload);
}

INSTANTIATE_TEST_SUITE_P(Examples, ProgramSpaceTest,
                         ::testing::Range(0, static_cast<int>(ProgramCases().size())),
                         ProgramCaseName);

// A 7×7 stride-2 stem (ResNet-50's first layer, small) reading an RGB image as one block of 3
// channels.
ProgramCase SmallStem() {
  return {"conv2d_blocked",
          {{"N", 1},
           {"C", 1},
           {"CB", 3},
           {"H", 13},
           {"W", 11},
           {"F", 1},
           {"FB", 16},
           {"R", 7},
           {"S", 7},
           {"St", 2},
           {"Pd", 3}}};
}

// conv2d_blocked.te at the other shapes cpu_kernels tunes it at: a 1×1 convolution with no
// padding (a GEMM over the blocked layout, Pd = 0), strided, with an 8-channel output block, and
// a 7×7 stride-2 stem reading a 3-channel block; and conv2d_nhwc.te's strided 1×1 convolution
// (a GEMM over channels-last pixels, every other one read).
TEST(ProgramSpace, Convolutions_PointwiseAndStem_MatchUnscheduledProgram) {
  const std::vector<ProgramCase> cases = {
      {"conv2d_blocked",
       {{"N", 1},
        {"C", 2},
        {"CB", 16},
        {"H", 6},
        {"W", 7},
        {"F", 3},
        {"FB", 8},
        {"R", 1},
        {"S", 1},
        {"St", 2},
        {"Pd", 0}}},
      SmallStem(),
      {"conv2d_nhwc",
       {{"N", 1},
        {"H", 6},
        {"W", 7},
        {"C", 19},
        {"F", 24},
        {"R", 1},
        {"S", 1},
        {"St", 2},
        {"Pd", 0}}},
  };
  for (const ProgramCase& c : cases) {
    ExampleWorkload e = MakeExampleWorkload(c);
    ASSERT_NE(e.tmpl, nullptr);
    CheckSpace(*e.tmpl, e.workload);
  }
}

// The example programs whose GPU schedule would need a kernel per stage (a layout transform
// reads the reduction's result): the generated GPU space refuses them, naming the stages.
bool NeedsSeveralKernels(const std::string& file) {
  return file == "conv2d_nchwc" || absl::StartsWith(file, "conv2d_winograd");
}

// cuda: every example program's generated GPU space builds PTX at configs spread over it, and
// the kernels, run by host emulation (blocks in turn, threads in lockstep between barriers),
// match the unscheduled program.
class GpuProgramSpaceTest : public ::testing::TestWithParam<int> {};

TEST_P(GpuProgramSpaceTest, Configs_BuildPtxAndMatchUnscheduledProgram) {
  const ProgramCase& c = ProgramCases()[GetParam()];
  ExampleWorkload e = MakeExampleWorkload(c);
  ASSERT_NE(e.tmpl, nullptr);
  absl::StatusOr<codegen::Target> cuda = codegen::ParseTarget("cuda -arch=sm_90");
  ASSERT_TRUE(cuda.ok());
  if (NeedsSeveralKernels(c.file)) {
    ConfigSpace space;
    absl::Status s = e.tmpl->DefineSpace(e.workload, *cuda, &space);
    EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "is one kernel")) << s;
    return;
  }
  CheckSpace(*e.tmpl, e.workload, *cuda);
}

INSTANTIATE_TEST_SUITE_P(Examples, GpuProgramSpaceTest,
                         ::testing::Range(0, static_cast<int>(ProgramCases().size())),
                         ProgramCaseName);

TEST(GeneratedTemplateSpace, TemplateOperators_RandomConfigsMatchReference) {
  const std::vector<std::pair<std::string, std::vector<int64_t>>> cases = {
      {"dense", {13, 37, 21}},
      {"batch_matmul", {2, 7, 19, 11}},
      {"conv2d", {1, 3, 9, 9, 4, 3, 3, 1, 1}},
      {"depthwise_conv2d", {1, 4, 10, 10, 3, 3, 2, 1}},
  };
  for (const auto& [name, args] : cases) {
    absl::StatusOr<const Template*> base = FindTemplate(name);
    ASSERT_TRUE(base.ok()) << base.status();
    std::shared_ptr<const Template> t = WithGeneratedSpace(*base);
    EXPECT_EQ(t->name(), "generated:" + name);
    absl::StatusOr<Workload> w = t->MakeWorkload(args, ir::DataType::Float(32));
    ASSERT_TRUE(w.ok()) << name << ": " << w.status();
    CheckSpace(*t, *w);
    CheckSpace(*t, *w, *codegen::ParseTarget("cuda -arch=sm_80"));
  }
}

// An example program with its shapes bound (float32) and its generated space for the host.
struct ProgramSpace {
  std::shared_ptr<const ProgramTemplate> tmpl;
  Workload workload;
  std::unique_ptr<ConfigSpace> space = std::make_unique<ConfigSpace>();
};
absl::StatusOr<ProgramSpace> MakeProgramSpace(
    const std::string& file, const absl::flat_hash_map<std::string, int64_t>& shapes,
    const codegen::Target& target = codegen::HostTarget(),
    ir::DataType dtype = ir::DataType::Float(32)) {
  ProgramSpace p;
  absl::StatusOr<std::shared_ptr<const ProgramTemplate>> t =
      ProgramTemplate::Create(file, ReadExample(file));
  if (!t.ok()) return t.status();
  p.tmpl = *t;
  absl::StatusOr<std::vector<int64_t>> args = p.tmpl->ArgsFor(shapes);
  if (!args.ok()) return args.status();
  absl::StatusOr<Workload> w = p.tmpl->MakeWorkload(*args, dtype);
  if (!w.ok()) return w.status();
  p.workload = *w;
  if (absl::Status s = p.tmpl->DefineSpace(p.workload, target, p.space.get()); !s.ok()) {
    return s;
  }
  return p;
}

// Reductions along a contiguous axis are split into vector lanes and their sum (the rfactor
// knob): random configs with every such knob on still match the unscheduled program.
TEST(ProgramTemplate, SplitReductions_RandomConfigsMatch) {
  struct Case {
    std::string file;
    absl::flat_hash_map<std::string, int64_t> shapes;
    int splits;  // Reductions with an rfactor knob.
  };
  const std::vector<Case> cases = {
      {"layer_norm", {{"N", 5}, {"D", 48}}, 2},
      {"dense", {{"M", 1}, {"N", 7}, {"K", 64}}, 1},
      {"attention_softmax", {{"Hd", 2}, {"L", 16}, {"D", 8}}, 2},
      {"global_avg_pool", {{"N", 1}, {"C", 3}, {"H", 5}, {"W", 8}}, 1},
      {"max_pool", {{"N", 1}, {"C", 3}, {"H", 15}, {"W", 12}}, 0},
  };
  const codegen::Target host = codegen::HostTarget();
  for (const Case& c : cases) {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(c.file, c.shapes);
    ASSERT_TRUE(p.ok()) << c.file << ": " << p.status();
    const ProgramTemplate& t = *p->tmpl;
    const Workload& w = p->workload;
    const ConfigSpace& space = *p->space;
    std::vector<int> rfactor;
    for (int k = 0; k < space.num_knobs(); ++k) {
      if (absl::EndsWith(space.knob(k).name(), ".rfactor")) rfactor.push_back(k);
    }
    ASSERT_EQ(static_cast<int>(rfactor.size()), c.splits) << c.file << ": " << space.Describe();
    if (rfactor.empty()) continue;
    absl::StatusOr<std::vector<runtime::NDArray>> ref = RunConfig(t, w, host, nullptr, 11);
    ASSERT_TRUE(ref.ok()) << ref.status();
    for (int i = 0; i < kConfigsPerSpace; ++i) {
      std::vector<int64_t> choices = space.Decompose((space.size() - 1) / 7 * (i + 1));
      for (size_t r = 0; r < rfactor.size(); ++r) {
        // Every knob on, then each alone.
        choices[rfactor[r]] = i == 0 || r == static_cast<size_t>(i) % rfactor.size() ? 1 : 0;
      }
      absl::StatusOr<Config> config = space.Get(space.Compose(choices));
      ASSERT_TRUE(config.ok());
      absl::StatusOr<std::vector<runtime::NDArray>> out = RunConfig(t, w, host, &*config, 11);
      ASSERT_TRUE(out.ok()) << c.file << " " << config->ToJson() << ": " << out.status();
      EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0)
          << c.file << " " << config->ToJson();
    }
  }
}

// The prefetch knob (software prefetch of what a single-row reduction streams) exists for a
// batch-1 dense layer, fp32 and int8, and not for 16 rows; configs spread over the space with it
// on match the unscheduled program (tails included: no tile divides N = 40 or K = 300), and their
// kernels prefetch the weight (48 and 64 KiB; the input row fits L1 and is left alone): most
// configs' reduction loops hold prefetch statements after lowering.
TEST(ProgramTemplate, Prefetch_OnlyForASingleRow_ConfigsWithItMatch) {
  struct Case {
    std::string file;
    absl::flat_hash_map<std::string, int64_t> shapes;
    bool has_knob;
    ir::DataType dtype = ir::DataType::Float(32);
  };
  const std::vector<Case> cases = {
      {"dense_layer", {{"M", 1}, {"N", 40}, {"K", 300}}, true},
      {"dense_layer", {{"M", 16}, {"N", 40}, {"K", 300}}, false},
      {"dense_u8s8_vnni", {{"M", 1}, {"N", 64}, {"K", 1024}}, true, ir::DataType::Int(32)},
  };
  const codegen::Target host = codegen::HostTarget();
  for (const Case& c : cases) {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(c.file, c.shapes, host, c.dtype);
    ASSERT_TRUE(p.ok()) << c.file << ": " << p.status();
    const ConfigSpace& space = *p->space;
    const int knob = space.KnobIndex("prefetch");
    ASSERT_EQ(knob >= 0, c.has_knob) << c.file << ": " << space.Describe();
    if (knob < 0) continue;
    absl::StatusOr<std::vector<runtime::NDArray>> ref =
        RunConfig(*p->tmpl, p->workload, host, nullptr, 11);
    ASSERT_TRUE(ref.ok()) << ref.status();
    int prefetching = 0;
    for (int i = 0; i < kConfigsPerSpace; ++i) {
      std::vector<int64_t> choices = space.Decompose((space.size() - 1) / 7 * (i + 1));
      choices[knob] = 1;  // 1,024 bytes ahead.
      absl::StatusOr<Config> config = space.Get(space.Compose(choices));
      ASSERT_TRUE(config.ok());
      absl::StatusOr<std::vector<runtime::NDArray>> out =
          RunConfig(*p->tmpl, p->workload, host, &*config, 11);
      ASSERT_TRUE(out.ok()) << c.file << " " << config->ToJson() << ": " << out.status();
      EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0)
          << c.file << " " << config->ToJson();
      absl::StatusOr<Instance> inst = p->tmpl->Instantiate(p->workload, host, &*config);
      ASSERT_TRUE(inst.ok()) << inst.status();
      absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*inst->sch, inst->args, "k");
      ASSERT_TRUE(f.ok()) << f.status();
      std::ostringstream ir_text;
      ir_text << f->body;
      if (absl::StrContains(ir_text.str(), "prefetch(")) ++prefetching;
      EXPECT_FALSE(absl::StrContains(ir_text.str(), "prefetch(A[")) << ir_text.str();
    }
    EXPECT_GE(prefetching * 2, kConfigsPerSpace) << c.file;
  }
}

// Register-tile rows only where they reuse loads: a dense layer's rows (the weights are
// shared) and a pooling window's rows (windows overlap), not a batch (every read indexes it);
// the order knob exists for every tiled reduction of rank 2 or more.
TEST(ProgramTemplate, RowTiles_OnlyAlongAxesWithReuse) {
  struct Case {
    std::string file;
    absl::flat_hash_map<std::string, int64_t> shapes;
    std::vector<std::string> present, absent;
  };
  const std::vector<Case> cases = {
      {"batch_matmul",
       {{"B", 4}, {"M", 16}, {"N", 32}, {"K", 8}},
       {"C.tile_i", "C.tile_j", "C.order"},
       {"C.tile_b"}},
      {"max_pool_nchwc",
       {{"N", 1}, {"C", 2}, {"H", 13}, {"W", 13}},
       {"Y.tile_h", "Y.tile_w", "Y.order"},
       {"Y.tile_c", "Y.tile_n"}},
      {"dense", {{"M", 16}, {"N", 32}, {"K", 64}}, {"C.tile_i", "C.pack_W"}, {"C.rfactor"}},
      {"layer_norm", {{"N", 4}, {"D", 64}}, {"S.rfactor", "Q.rfactor"}, {}},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(c.file, c.shapes);
    ASSERT_TRUE(p.ok()) << c.file << ": " << p.status();
    const ConfigSpace& space = *p->space;
    for (const std::string& k : c.present) {
      EXPECT_GE(space.KnobIndex(k), 0) << c.file << " lacks " << k << ": " << space.Describe();
    }
    for (const std::string& k : c.absent) {
      EXPECT_LT(space.KnobIndex(k), 0) << c.file << " has " << k << ": " << space.Describe();
    }
  }
}

// Every register tile of a prime-sized dense layer, tails in the rows, the vector or both (their
// loops are kept out of the fused loop and peeled), matches the unscheduled program.
TEST(ProgramTemplate, RowAndVectorTails_EveryTileMatches) {
  absl::StatusOr<ProgramSpace> p = MakeProgramSpace("dense", {{"M", 13}, {"N", 37}, {"K", 21}});
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  const int rows = space.KnobIndex("C.tile_i"), cols = space.KnobIndex("C.tile_j");
  const int order = space.KnobIndex("C.order");
  ASSERT_GE(rows, 0);
  ASSERT_GE(cols, 0);
  ASSERT_GE(order, 0);
  // 1, 2, 4, 8 (16 is past the extent), 6, 12 and 13 itself (a divisor).
  EXPECT_EQ(space.knob(rows).size(), 7) << space.Describe();
  const codegen::Target host = codegen::HostTarget();
  absl::StatusOr<std::vector<runtime::NDArray>> ref =
      RunConfig(*p->tmpl, p->workload, host, nullptr, 9);
  ASSERT_TRUE(ref.ok()) << ref.status();
  for (int64_t r = 0; r < space.knob(rows).size(); ++r) {
    for (int64_t c = 0; c < space.knob(cols).size(); ++c) {
      std::vector<int64_t> choices = space.Decompose(0);
      choices[rows] = r;
      choices[cols] = c;
      choices[order] = (r + c) % 2;
      absl::StatusOr<Config> config = space.Get(space.Compose(choices));
      ASSERT_TRUE(config.ok());
      absl::StatusOr<std::vector<runtime::NDArray>> out =
          RunConfig(*p->tmpl, p->workload, host, &*config, 9);
      ASSERT_TRUE(out.ok()) << config->ToJson() << ": " << out.status();
      EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0)
          << config->ToJson();
    }
  }
}

// A weight (declared with weight(...)) may be packed once ahead of time: the kernel then takes
// the packed copy as its argument, made by a program of its own, and still matches the
// unscheduled program; a plain input is only packed per call.
TEST(ProgramTemplate, WeightPackedAheadOfTime_KernelTakesPackedCopyAndMatches) {
  absl::StatusOr<ProgramSpace> plain = MakeProgramSpace("dense", {{"M", 5}, {"N", 37}, {"K", 19}});
  ASSERT_TRUE(plain.ok()) << plain.status();
  const int plain_pack = plain->space->KnobIndex("C.pack_W");
  ASSERT_GE(plain_pack, 0);
  EXPECT_EQ(plain->space->knob(plain_pack).size(), 2);

  absl::StatusOr<ProgramSpace> p =
      MakeProgramSpace("dense_bias_gelu", {{"M", 5}, {"N", 37}, {"K", 19}});
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  const int pack = space.KnobIndex("Y.pack_W");
  const int tile = space.KnobIndex("Y.tile_j");
  ASSERT_GE(pack, 0) << space.Describe();
  ASSERT_GE(tile, 0) << space.Describe();
  ASSERT_EQ(space.knob(pack).size(), 3);
  const codegen::Target host = codegen::HostTarget();
  absl::StatusOr<std::vector<runtime::NDArray>> ref =
      RunConfig(*p->tmpl, p->workload, host, nullptr, 5);
  ASSERT_TRUE(ref.ok()) << ref.status();
  for (int i = 0; i < kConfigsPerSpace; ++i) {
    std::vector<int64_t> choices = space.Decompose((space.size() - 1) / 5 * i);
    choices[pack] = 2;
    absl::StatusOr<Config> config = space.Get(space.Compose(choices));
    ASSERT_TRUE(config.ok());
    absl::StatusOr<std::vector<int64_t>> block = config->Split("Y.tile_j");
    ASSERT_TRUE(block.ok());
    absl::StatusOr<Instance> inst = p->tmpl->Instantiate(p->workload, host, &*config);
    ASSERT_TRUE(inst.ok()) << inst.status();
    ASSERT_EQ(inst->prepacks.size(), 1u) << config->ToJson();
    EXPECT_EQ(inst->prepacks[0].arg_index, 1);
    EXPECT_EQ(inst->prepacks[0].args[0].name(), "W");
    // W[37, 19] packed by the vector tile b: [ceil(37 / b), 19, b], the kernel's argument 1.
    const int64_t b = (*block)[1];
    const te::Tensor& arg = inst->args[1];
    ASSERT_EQ(arg.ndim(), 3u);
    EXPECT_EQ(*ir::AsConstInt(arg.shape()[0]), (37 + b - 1) / b) << config->ToJson();
    EXPECT_EQ(*ir::AsConstInt(arg.shape()[2]), b) << config->ToJson();
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        RunConfig(*p->tmpl, p->workload, host, &*config, 5);
    ASSERT_TRUE(out.ok()) << config->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0) << config->ToJson();
  }
}

// The Winograd programs are convolutions: configs across the space, their filter transform
// computed ahead of the calls (a prepack, hoist_weights.h), give the direct 3×3 convolution of
// the same input and blocked filter, computed here in double precision, to float32 rounding.
// 9×10 leaves partial tiles on both axes. A wrong transform constant, tile offset or padding
// fails it. Each knob of `set` (name, value as Config::ToJson prints it) has that value in
// every config, and `check_ir` looks at each lowered kernel.
void CheckWinogradEqualsDirect(
    const std::string& file, const std::vector<std::pair<std::string, std::string>>& set = {},
    const std::function<void(const std::string& ir_text, const Config& config)>& check_ir =
        nullptr) {
  SCOPED_TRACE(file);
  constexpr int64_t kC = 2, kF = 1, kH = 9, kW = 10;
  absl::StatusOr<ProgramSpace> p =
      MakeProgramSpace(file, {{"N", 1}, {"C", kC}, {"H", kH}, {"W", kW}, {"F", kF}});
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  const ir::DataType f32 = ir::DataType::Float(32);
  absl::StatusOr<runtime::NDArray> x = runtime::NDArray::Empty({1, kC, kH, kW, 16}, f32);
  absl::StatusOr<runtime::NDArray> wt = runtime::NDArray::Empty({kF, kC, 3, 3, 16, 16}, f32);
  ASSERT_TRUE(x.ok() && wt.ok());
  x->FillRandom(3);
  wt->FillRandom(4);
  // The direct convolution, stride 1, padding 1, NCHW16c, filter [F][C][3][3][16 in][16 out].
  const int64_t ci = kC * 16, co = kF * 16;
  std::vector<double> direct(co * kH * kW);
  for (int64_t o = 0; o < co; ++o) {
    for (int64_t y = 0; y < kH; ++y) {
      for (int64_t xx = 0; xx < kW; ++xx) {
        double acc = 0;
        for (int64_t c = 0; c < ci; ++c) {
          for (int r = 0; r < 3; ++r) {
            for (int q = 0; q < 3; ++q) {
              const int64_t h = y + r - 1, w = xx + q - 1;
              if (h < 0 || h >= kH || w < 0 || w >= kW) continue;
              acc += x->Get((((c / 16) * kH + h) * kW + w) * 16 + c % 16) *
                     wt->Get((((((o / 16) * kC + c / 16) * 3 + r) * 3 + q) * 16 + c % 16) * 16 +
                             o % 16);
            }
          }
        }
        direct[((o / 16 * kH + y) * kW + xx) * 16 + o % 16] = acc;
      }
    }
  }
  const codegen::Target host = codegen::HostTarget();
  for (int i = 0; i < kConfigsPerSpace; ++i) {
    std::vector<int64_t> choices = space.Decompose((space.size() - 1) / (kConfigsPerSpace - 1) * i);
    for (const auto& [knob, value] : set) {
      const int k = space.KnobIndex(knob);
      ASSERT_GE(k, 0) << knob << " in " << space.Describe();
      int64_t choice = 0;
      while (choice < space.knob(k).size() && space.knob(k).ValueJson(choice) != value) ++choice;
      ASSERT_LT(choice, space.knob(k).size()) << knob << " has no choice " << value;
      choices[k] = choice;
    }
    absl::StatusOr<Config> config = space.Get(space.Compose(choices));
    ASSERT_TRUE(config.ok());
    absl::StatusOr<Instance> inst = p->tmpl->Instantiate(p->workload, host, &*config);
    ASSERT_TRUE(inst.ok()) << inst.status();
    // The transform is hoisted: the kernel reads U, made from Wt by the prepack.
    ASSERT_EQ(inst->prepacks.size(), 1u) << config->ToJson();
    EXPECT_EQ(inst->prepacks[0].args[0].name(), "Wt");
    EXPECT_EQ(inst->prepacks[0].args[1].name(), "U");
    EXPECT_EQ(inst->args[1].name(), "U");
    absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*inst->sch, inst->args, "winograd");
    ASSERT_TRUE(f.ok()) << config->ToJson() << ": " << f.status();
    if (check_ir) check_ir(ir::ToString(f->body), *config);
    const Prepack& pack = inst->prepacks[0];
    absl::StatusOr<lower::LoweredFunc> pf = lower::Lower(*pack.sch, pack.args, "transform");
    ASSERT_TRUE(pf.ok()) << pf.status();
    auto jit = codegen::BuildJit({*f, *pf}, host);
    ASSERT_TRUE(jit.ok()) << jit.status();
    absl::StatusOr<TfKernelFn> fn = (*jit)->Lookup("winograd");
    absl::StatusOr<TfKernelFn> transform = (*jit)->Lookup("transform");
    ASSERT_TRUE(fn.ok() && transform.ok());
    std::vector<int64_t> u_shape;
    for (const ir::Expr& e : inst->args[1].shape()) u_shape.push_back(*ir::AsConstInt(e));
    absl::StatusOr<runtime::NDArray> u = runtime::NDArray::Empty(u_shape, f32);
    absl::StatusOr<runtime::NDArray> y = runtime::NDArray::Empty({1, kF, kH, kW, 16}, f32);
    ASSERT_TRUE(u.ok() && y.ok());
    ASSERT_TRUE(runtime::Call(*transform, {&*wt, &*u}).ok());
    ASSERT_TRUE(runtime::Call(*fn, {&*x, &*u, &*y}).ok()) << config->ToJson();
    double worst = 0;
    for (size_t k = 0; k < direct.size(); ++k) {
      worst = std::max(worst, std::abs(y->Get(k) - direct[k]) / (1.0 + std::abs(direct[k])));
    }
    EXPECT_LT(worst, 1e-4) << config->ToJson();
  }
}

TEST(ProgramSpace, Winograd_EqualsDirectConvolution) {
  CheckWinogradEqualsDirect("conv2d_winograd");
  CheckWinogradEqualsDirect("conv2d_winograd_f2");
}

// The Winograd programs' transform matrices are tables (constant(...), table_axes.h): every
// axis that indexes one as a whole index (D's i and a, V's j and b, E's y and i, Y's j) has one
// tile, the whole extent, and its stage one unroll choice, unrolled; the other axes keep their
// choices. Where the transforms' other register rows are few enough to be unrolled too (at most
// kMaxUnrolledRows points; here 1 each), every read of Bt has a constant index, folds to its
// value (lower/fold_table_loads.h), and Bt is neither computed nor read; each such config still
// computes the direct convolution.
TEST(ProgramSpace, Winograd_TableAxesTiledWholeAndUnrolled_TableFoldsAwayAndMatches) {
  for (const auto& [file, tile, rows] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"conv2d_winograd", "[-1, 6]", "[-1, 4]"},
           {"conv2d_winograd_f2", "[-1, 4]", "[-1, 2]"}}) {
    SCOPED_TRACE(file);
    absl::StatusOr<ProgramSpace> p =
        MakeProgramSpace(file, {{"N", 1}, {"C", 2}, {"H", 9}, {"W", 10}, {"F", 1}});
    ASSERT_TRUE(p.ok()) << p.status();
    const ConfigSpace& space = *p->space;
    // E's y (the output tile's rows) indexes At too.
    for (const auto& [knob, value] :
         std::vector<std::pair<std::string, std::string>>{{"D.tile_i", tile},
                                                          {"D.tile_a", tile},
                                                          {"V.tile_j", tile},
                                                          {"V.tile_b", tile},
                                                          {"E.tile_i", tile},
                                                          {"E.tile_y", rows},
                                                          {"Y.tile_j", tile},
                                                          {"D.unroll", "1"},
                                                          {"V.unroll", "1"},
                                                          {"E.unroll", "1"},
                                                          {"Y.unroll", "1"}}) {
      const int k = space.KnobIndex(knob);
      ASSERT_GE(k, 0) << knob << " in " << space.Describe();
      ASSERT_EQ(space.knob(k).size(), 1) << knob << " in " << space.Describe();
      EXPECT_EQ(space.knob(k).ValueJson(0), value) << knob;
    }
    // What indexes no table keeps its choices: V's rows over the input transform's i, the GEMM.
    EXPECT_GT(space.knob(space.KnobIndex("V.tile_i")).size(), 1);
    EXPECT_GT(space.knob(space.KnobIndex("M.unroll")).size(), 1);
  }
  std::vector<std::pair<std::string, std::string>> small_rows;
  for (const std::string knob :
       {"D.tile_c", "D.tile_th", "D.tile_w", "V.tile_i", "V.tile_c", "V.tile_th", "V.tile_tw"}) {
    small_rows.push_back({knob, "[-1, 1]"});
  }
  for (const std::string file : {"conv2d_winograd", "conv2d_winograd_f2"}) {
    CheckWinogradEqualsDirect(
        file, small_rows, [](const std::string& ir_text, const Config& config) {
          EXPECT_FALSE(absl::StrContains(ir_text, "Bt[")) << config.ToJson() << "\n" << ir_text;
        });
  }
}

// The lowered IR of `config` of the program's space, as text.
absl::StatusOr<std::string> LoweredText(const ProgramSpace& p, const Config& config) {
  absl::StatusOr<Instance> inst = p.tmpl->Instantiate(p.workload, codegen::HostTarget(), &config);
  if (!inst.ok()) return inst.status();
  absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*inst->sch, inst->args, "kernel");
  if (!f.ok()) return f.status();
  return ir::ToString(f->body);
}

// The choices of `space` with each split knob in `inner` set to the choice of that inner factor
// (the others from `base`).
std::vector<int64_t> WithInnerFactors(const ConfigSpace& space, std::vector<int64_t> base,
                                      const std::vector<std::pair<std::string, int64_t>>& inner) {
  for (const auto& [name, factor] : inner) {
    const int k = space.KnobIndex(name);
    EXPECT_GE(k, 0) << name << " in " << space.Describe();
    if (k < 0) continue;
    const auto& split = dynamic_cast<const SplitKnob&>(space.knob(k));
    bool found = false;
    for (int64_t c = 0; c < split.size() && !found; ++c) {
      if (split.Factors(c).back() == factor) {
        base[k] = c;
        found = true;
      }
    }
    EXPECT_TRUE(found) << name << " has no inner factor " << factor << ": " << space.Describe();
  }
  return base;
}

// The generated space of `program` at `shape` for `target`, and its config whose split knobs in
// `tiles` have those inner factors (the other knobs as in config 0), which the space must admit
// (a test failure, and an empty space, otherwise).
std::pair<ProgramSpace, Config> SpaceWithTiles(
    const std::string& program, const absl::flat_hash_map<std::string, int64_t>& shape,
    const codegen::Target& target, const std::vector<std::pair<std::string, int64_t>>& tiles) {
  absl::StatusOr<ProgramSpace> p = MakeProgramSpace(program, shape, target);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return {};
  const ConfigSpace& space = *p->space;
  std::vector<int64_t> choices = WithInnerFactors(space, space.Decompose(0), tiles);
  EXPECT_TRUE(space.Admits(choices)) << program << " on " << target.str;
  absl::StatusOr<Config> config = space.Get(space.Compose(choices));
  EXPECT_TRUE(config.ok());
  if (!config.ok()) return {};
  return {*std::move(p), *std::move(config)};
}

// ResNet-50's 1x1 stride-2 convolution, 256 -> 512 channels at 56 x 56, with fewer channels.
const absl::flat_hash_map<std::string, int64_t> kConv1x1Stride2 = {
    {"N", 1},   {"C", 2}, {"CB", 16}, {"H", 56}, {"W", 56}, {"F", 8},
    {"FB", 16}, {"R", 1}, {"S", 1},   {"St", 2}, {"Pd", 0}};

// Whether the generated space of `program` at `shape` for `target` admits the config whose split
// knobs in `tiles` have those inner factors (the other knobs as in config 0).
bool AdmitsTiles(const std::string& program, const absl::flat_hash_map<std::string, int64_t>& shape,
                 const codegen::Target& target,
                 const std::vector<std::pair<std::string, int64_t>>& tiles) {
  absl::StatusOr<ProgramSpace> p = MakeProgramSpace(program, shape, target);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return false;
  return p->space->Admits(WithInnerFactors(*p->space, p->space->Decompose(0), tiles));
}

// Every tiled stage with register rows is constrained to keep what one step of its reduction
// holds live within the vector register file (register_tile.h): the accumulators and the values
// kept across the outermost row axis, 32 registers with AVX-512, 16 with AVX2. A dense layer's
// rows share the weight vectors: 6 x 64 (24 + 4 + the broadcast) and 16 x 16 (16 + 1, the
// broadcast from memory) are admitted on AVX-512, 7 x 64 (28 + 4 + 1), 8 x 64 (32 + 4 + 1) and
// 16 x 32 (32 + 2 + 1) are not; on AVX2 (the row's broadcast in a register too)
// 4 x 16 (8 + 2 + 1) and 1 x 64 (8 + 1) are admitted and 8 x 16, 2 x 64 and 8 x 32 are not. Each
// stage of the Winograd program is constrained alone. A rejected config is still a config of the
// space, and it lowers (only the search keeps away from it).
TEST(ProgramTemplate, RegisterTile_LiveValuesWithinTheVectorRegisterFile) {
  absl::StatusOr<codegen::Target> avx512 = codegen::ParseTarget("llvm -mcpu=skylake-avx512");
  absl::StatusOr<codegen::Target> avx2 = codegen::ParseTarget("llvm -mcpu=haswell");
  ASSERT_TRUE(avx512.ok() && avx2.ok());
  const absl::flat_hash_map<std::string, int64_t> dense_shape = {{"M", 64}, {"N", 256}, {"K", 32}};
  {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace("dense", dense_shape, *avx512);
    ASSERT_TRUE(p.ok()) << p.status();
    ASSERT_EQ(p->space->num_constraints(), 1) << p->space->Describe();
    EXPECT_EQ(p->space->constraint_name(0), "C.registers");
  }
  auto dense = [&](const codegen::Target& target, int64_t i, int64_t j) {
    return AdmitsTiles("dense", dense_shape, target, {{"C.tile_i", i}, {"C.tile_j", j}});
  };
  EXPECT_TRUE(dense(*avx512, 6, 64));
  EXPECT_TRUE(dense(*avx512, 16, 16));
  EXPECT_TRUE(dense(*avx512, 8, 32));
  EXPECT_FALSE(dense(*avx512, 8, 64));
  EXPECT_FALSE(dense(*avx512, 16, 32));
  EXPECT_FALSE(AdmitsTiles("dense", {{"M", 49}, {"N", 256}, {"K", 32}}, *avx512,
                           {{"C.tile_i", 7}, {"C.tile_j", 64}}));
  EXPECT_TRUE(AdmitsTiles("dense", {{"M", 49}, {"N", 256}, {"K", 32}}, *avx512,
                          {{"C.tile_i", 7}, {"C.tile_j", 32}}));
  EXPECT_FALSE(dense(*avx512, 16, 64));
  EXPECT_TRUE(dense(*avx2, 4, 16));
  EXPECT_TRUE(dense(*avx2, 1, 64));
  EXPECT_FALSE(dense(*avx2, 8, 16));
  EXPECT_FALSE(dense(*avx2, 2, 64));
  EXPECT_FALSE(dense(*avx2, 8, 32));
  // A 1x1 stride-2 convolution's tile [f][x][fb]: run in axis order, each of the x input values
  // is broadcast once and kept for the f weight vectors. 4 x 6 (24 + 6 + 1) fits so. 2 x 12
  // (24 + 12 + 1) and 2 x 14 (28 + 14 + 1) do not, and LLVM spilled 40 and 88 registers of them
  // to the stack (tuner/README); run as [x][f] (RegisterRowOrder) they keep the f weight vectors
  // instead (24 + 2 + 1, 28 + 2 + 1) and are admitted. 4 x 7 fits neither way (28 + 7 + 1,
  // 28 + 4 + 1). With one output block (f = 1) nothing is kept: 1 x 14.
  auto conv = [&](int64_t f, int64_t x) {
    return AdmitsTiles("conv2d_blocked", kConv1x1Stride2, *avx512,
                       {{"Y.tile_f", f}, {"Y.tile_x", x}, {"Y.tile_y", 1}, {"Y.tile_fb", 16}});
  };
  EXPECT_TRUE(conv(4, 6));
  EXPECT_TRUE(conv(1, 14));
  EXPECT_TRUE(conv(2, 12));
  EXPECT_TRUE(conv(2, 14));
  EXPECT_FALSE(conv(4, 7));
  absl::StatusOr<ProgramSpace> p = MakeProgramSpace(
      "conv2d_winograd", {{"N", 1}, {"C", 2}, {"H", 16}, {"W", 16}, {"F", 4}}, *avx512);
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  std::vector<std::string> names;
  for (int i = 0; i < space.num_constraints(); ++i) names.push_back(space.constraint_name(i));
  EXPECT_EQ(names, (std::vector<std::string>{"D.registers", "V.registers", "M.registers",
                                             "E.registers", "Y.registers"}))
      << space.Describe();
  // The smallest tiles everywhere; then one stage's rows grown.
  std::vector<int64_t> small = space.Decompose(0);
  for (int k = 0; k < space.num_knobs(); ++k) {
    const auto* split = dynamic_cast<const SplitKnob*>(&space.knob(k));
    if (split == nullptr || split->size() == 1) continue;
    small[k] = 0;  // Inner factor 1.
  }
  ASSERT_TRUE(space.Admits(small)) << space.Describe();
  // M's rows: f x th x tw, the vector fb = 16 floats, reading V[.., th, tw, cb] (kept across
  // f) and U[.., f, .., fb]: 1 x 4 x 4 = 16 accumulators + 1 weight vector admitted; 2 x 2 x 4
  // (16 + 8 kept + 1 = 25) too; 4 x 2 x 4 (32 + 8 + 1) and 2 x 4 x 4 (32 + 16 + 1) not.
  EXPECT_TRUE(space.Admits(
      WithInnerFactors(space, small, {{"M.tile_f", 1}, {"M.tile_th", 4}, {"M.tile_tw", 4}})));
  EXPECT_TRUE(space.Admits(
      WithInnerFactors(space, small, {{"M.tile_f", 2}, {"M.tile_th", 2}, {"M.tile_tw", 4}})));
  EXPECT_FALSE(space.Admits(
      WithInnerFactors(space, small, {{"M.tile_f", 4}, {"M.tile_th", 2}, {"M.tile_tw", 4}})));
  const std::vector<int64_t> over =
      WithInnerFactors(space, small, {{"M.tile_f", 2}, {"M.tile_th", 4}, {"M.tile_tw", 4}});
  EXPECT_FALSE(space.Admits(over));
  // D's rows: i (6, the whole table axis) x th x w x c: 6 x 2 x 2 = 24 (+ 2 x 2 input vectors
  // kept across i) admitted, 6 x 2 x 4 not.
  EXPECT_TRUE(space.Admits(WithInnerFactors(space, small, {{"D.tile_th", 2}, {"D.tile_w", 2}})));
  EXPECT_FALSE(space.Admits(WithInnerFactors(space, small, {{"D.tile_th", 2}, {"D.tile_w", 4}})));
  absl::StatusOr<Config> rejected = space.Get(space.Compose(over));
  ASSERT_TRUE(rejected.ok());
  absl::StatusOr<std::string> lowered = LoweredText(*p, *rejected);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
}

// The register tiles the rule admits at its bound compile without spills for AVX-512: the 1x1
// stride-2 convolution's 4 x 6 (run in axis order, 31 registers) and 2 x 14 (28 accumulators,
// its rows run as [x][f], 31 registers; 88 vector registers spilled in axis order), and a dense
// layer's 6 x 64 (24 + 4 + 1), its weights packed. The counts come from the assembly LLVM writes
// for the target, so this holds on any x86 host.
TEST(ProgramTemplate, RegisterTile_AdmittedTilesDoNotSpill) {
  absl::StatusOr<codegen::Target> avx512 = codegen::ParseTarget("llvm -mcpu=skylake-avx512");
  ASSERT_TRUE(avx512.ok());
  auto spills = [&](const std::string& program,
                    const absl::flat_hash_map<std::string, int64_t>& shape,
                    const std::vector<std::pair<std::string, int64_t>>& tiles,
                    const std::vector<std::pair<std::string, std::string>>& others = {}) -> int {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(program, shape, *avx512);
    EXPECT_TRUE(p.ok()) << p.status();
    if (!p.ok()) return -1;
    const ConfigSpace& space = *p->space;
    std::vector<int64_t> choices = WithInnerFactors(space, space.Decompose(0), tiles);
    for (const auto& [name, value] : others) {
      const int k = space.KnobIndex(name);
      EXPECT_GE(k, 0) << name;
      for (int64_t c = 0; k >= 0 && c < space.knob(k).size(); ++c) {
        if (space.knob(k).ValueJson(c) == value) choices[k] = c;
      }
    }
    EXPECT_TRUE(space.Admits(choices)) << program;
    absl::StatusOr<Config> config = space.Get(space.Compose(choices));
    EXPECT_TRUE(config.ok());
    if (!config.ok()) return -1;
    absl::StatusOr<Instance> inst = p->tmpl->Instantiate(p->workload, *avx512, &*config);
    EXPECT_TRUE(inst.ok()) << inst.status();
    if (!inst.ok()) return -1;
    absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*inst->sch, inst->args, "kernel");
    EXPECT_TRUE(f.ok()) << f.status();
    if (!f.ok()) return -1;
    absl::StatusOr<std::string> assembly = codegen::BuildAssembly({*f}, *avx512);
    EXPECT_TRUE(assembly.ok()) << assembly.status();
    if (!assembly.ok()) return -1;
    EXPECT_TRUE(absl::StrContains(*assembly, "%zmm")) << program;
    return codegen::CountVectorSpills(*assembly);
  };
  const std::vector<std::pair<std::string, int64_t>> unrolled = {
      {"Y.tile_y", 1}, {"Y.tile_fb", 16}, {"Y.tile_c", 1}, {"Y.tile_cb", 1}};
  for (const auto& [f, x] : std::vector<std::pair<int64_t, int64_t>>{{4, 6}, {2, 14}}) {
    std::vector<std::pair<std::string, int64_t>> tiles = unrolled;
    tiles.push_back({"Y.tile_f", f});
    tiles.push_back({"Y.tile_x", x});
    EXPECT_EQ(spills("conv2d_blocked", kConv1x1Stride2, tiles), 0) << f << " x " << x;
  }
  // The 2 x 14 tile, its rows reordered on this host too (it fits no register file in axis
  // order), computes what the program does.
  {
    absl::StatusOr<ProgramSpace> p =
        MakeProgramSpace("conv2d_blocked", kConv1x1Stride2, codegen::HostTarget());
    ASSERT_TRUE(p.ok()) << p.status();
    std::vector<std::pair<std::string, int64_t>> tiles = unrolled;
    tiles.push_back({"Y.tile_f", 2});
    tiles.push_back({"Y.tile_x", 14});
    absl::StatusOr<Config> config = p->space->Get(
        p->space->Compose(WithInnerFactors(*p->space, p->space->Decompose(0), tiles)));
    ASSERT_TRUE(config.ok());
    absl::StatusOr<std::vector<runtime::NDArray>> ref =
        RunConfig(*p->tmpl, p->workload, codegen::HostTarget(), nullptr, 11);
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        RunConfig(*p->tmpl, p->workload, codegen::HostTarget(), &*config, 11);
    ASSERT_TRUE(ref.ok() && out.ok()) << ref.status() << " " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0);
  }
  // W packed (per call) for the vector tile; read as it is, W[j, k] across 64 rows j is a
  // strided read whose lanes LLVM assembles in registers the rule does not count (4 spills).
  EXPECT_EQ(spills("dense", {{"M", 64}, {"N", 256}, {"K", 32}},
                   {{"C.tile_i", 6}, {"C.tile_j", 64}, {"C.tile_k", 1}}, {{"C.pack_W", "1"}}),
            0);
}

// A register tile one vector wide (a dense layer with N = 16) broadcasts each A[i, k] into one
// multiply-add, folded as its memory operand. Each such operand is addressed from a register of
// its own plus a constant (codegen/plain_broadcast_addresses.h), never base + index, which Intel
// cores issue as two micro-ops; the kernel computes what the program does. M = 40 leaves a tail
// of 8 rows after two tiles of 16 (on a host without AVX-512, where 16 rows of two ymm
// accumulators exceed the register file, a tail of 4 after six tiles of 6).
TEST(ProgramTemplate, OneVectorTile_BroadcastOperandsAddressedFromOneRegisterAndMatch) {
  const absl::flat_hash_map<std::string, int64_t> shape = {{"M", 40}, {"N", 16}, {"K", 64}};
  // The space for `target` and its config with the `rows` x 16 tile, unrolled 4 steps along k.
  auto tile = [&](const codegen::Target& target, int64_t rows) {
    return SpaceWithTiles("dense_layer", shape, target,
                          {{"C.tile_i", rows}, {"C.tile_j", 16}, {"C.tile_k", 4}});
  };
  absl::StatusOr<codegen::Target> avx512 = codegen::ParseTarget("llvm -mcpu=skylake-avx512");
  ASSERT_TRUE(avx512.ok());
  auto [p, config] = tile(*avx512, 16);
  ASSERT_NE(p.tmpl, nullptr);
  absl::StatusOr<Instance> inst = p.tmpl->Instantiate(p.workload, *avx512, &config);
  ASSERT_TRUE(inst.ok()) << inst.status();
  absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*inst->sch, inst->args, "kernel");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<std::string> assembly = codegen::BuildAssembly({*f}, *avx512);
  ASSERT_TRUE(assembly.ok()) << assembly.status();
  int broadcasts = 0;
  for (absl::string_view line : absl::StrSplit(*assembly, '\n')) {
    if (!absl::StrContains(line, "vfmadd") || !absl::StrContains(line, "{1to16}")) continue;
    ++broadcasts;
    EXPECT_FALSE(absl::StrContains(line, ",%r")) << "indexed broadcast operand: " << line;
  }
  EXPECT_GE(broadcasts, 16) << *assembly;

  // TargetHasFeature answers only for the triple's own architecture (target.h).
  const codegen::Target host_target = codegen::HostTarget();
  const bool host_avx512 = absl::StartsWith(host_target.triple, "x86_64") &&
                           codegen::TargetHasFeature(host_target, "avx512f");
  auto [host, host_config] = tile(host_target, host_avx512 ? 16 : 6);
  ASSERT_NE(host.tmpl, nullptr);
  absl::StatusOr<std::vector<runtime::NDArray>> ref =
      RunConfig(*host.tmpl, host.workload, codegen::HostTarget(), nullptr, 13);
  absl::StatusOr<std::vector<runtime::NDArray>> out =
      RunConfig(*host.tmpl, host.workload, codegen::HostTarget(), &host_config, 13);
  ASSERT_TRUE(ref.ok() && out.ok()) << ref.status() << " " << out.status();
  EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0);
}

// dense_pairs.te (the weight in pairs of inputs, W[k][n / 8][n % 8][t] for input 2k + t of
// output n) computes a dense layer, A·Wᵀ, checked here against the sum itself and not only
// against the program's unscheduled self (ProgramSpaceTest), with an odd number of input pairs.
// On AVX-512 each pair of A is one 8-byte load repeated across the register (vbroadcastsd),
// never gathered, and serves both blocks of 8 outputs.
TEST(ProgramTemplate, DensePairs_BroadcastsInputPairs_ComputesADenseLayer) {
  const int64_t m = 16, n = 16, k = 22;
  const absl::flat_hash_map<std::string, int64_t> shape = {{"M", m}, {"N", n}, {"K", k}};
  // The space for `target` and its config with `rows` rows of both blocks of 8 outputs.
  auto tile = [&](const codegen::Target& target, int64_t rows) {
    return SpaceWithTiles("dense_pairs", shape, target,
                          {{"P.tile_i", rows}, {"P.tile_b", 2}, {"P.tile_k", 1}});
  };
  absl::StatusOr<codegen::Target> avx512 = codegen::ParseTarget("llvm -mcpu=skylake-avx512");
  ASSERT_TRUE(avx512.ok());
  auto [p, config] = tile(*avx512, 8);
  ASSERT_NE(p.tmpl, nullptr);
  absl::StatusOr<std::string> assembly = ConfigAssembly(*p.tmpl, p.workload, *avx512, config);
  ASSERT_TRUE(assembly.ok()) << assembly.status();
  EXPECT_TRUE(absl::StrContains(*assembly, "vbroadcastsd")) << *assembly;
  // (C's every-other-element loads of P are one load of 31 elements and a shuffle, whose last
  // element LLVM inserts with vinsertps: insertps is not a per-lane load here.)
  for (const char* per_lane : {"vpinsr", "gather"}) {
    EXPECT_FALSE(absl::StrContains(*assembly, per_lane)) << per_lane << "\n" << *assembly;
  }

  // On a host without AVX-512, 8 rows of four ymm accumulators exceed the register file: 2.
  const codegen::Target host_target = codegen::HostTarget();
  const bool host_avx512 = absl::StartsWith(host_target.triple, "x86_64") &&
                           codegen::TargetHasFeature(host_target, "avx512f");
  auto [host, host_config] = tile(host_target, host_avx512 ? 8 : 2);
  ASSERT_NE(host.tmpl, nullptr);
  for (const Config* c : std::vector<const Config*>{nullptr, &host_config}) {
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        RunConfig(*host.tmpl, host.workload, codegen::HostTarget(), c, 17);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 3);  // A, W, C.
    const float* a = (*out)[0].data<float>();
    const float* w = (*out)[1].data<float>();
    auto want = *runtime::NDArray::Empty({m, n}, ir::DataType::Float(32));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t x = 0; x < k; ++x) sum += a[i * k + x] * w[((x / 2) * n + j) * 2 + x % 2];
        want.data<float>()[i * n + j] = static_cast<float>(sum);
      }
    }
    EXPECT_LE(runtime::MaxRelError(out->back(), want, 1e-4, 1e-4), 1.0)
        << (c == nullptr ? "unscheduled" : c->ToJson());
  }
}

// An elementwise stage computed at the top level because a reduction reads it (attention's
// exponentials E, read by the row sum Z) stores its contiguous axis in vectors, a tail peeled
// (37 = 32 + 5), in every config; the results match the unscheduled program (ProgramSpaceTest).
TEST(ProgramTemplate, RootElementwiseStage_Vectorized) {
  absl::StatusOr<ProgramSpace> p =
      MakeProgramSpace("attention_softmax", {{"Hd", 2}, {"L", 37}, {"D", 8}});
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  for (int i = 0; i < kConfigsPerSpace; ++i) {
    absl::StatusOr<Config> config = space.Get((space.size() - 1) / (kConfigsPerSpace - 1) * i);
    ASSERT_TRUE(config.ok());
    absl::StatusOr<std::string> ir_text = LoweredText(*p, *config);
    ASSERT_TRUE(ir_text.ok()) << ir_text.status();
    EXPECT_TRUE(absl::StrContains(*ir_text, ", 1, 32)] = exp(")) << config->ToJson() << "\n"
                                                                 << *ir_text;
  }
}

// A batched matmul's W (an input, read per batch) may be packed one batch at a time inside the
// batch loop: its copy is then one batch's, [ceil(19 / b) × 1 × 11 × b], computed in that loop
// before the batch's tiles, and every config, rows and vector tails, serial or parallel,
// matches the unscheduled program. A program with a batch of one has no such value.
TEST(ProgramTemplate, BatchedInputPackedPerBatch_InsideTheBatchLoopAndMatches) {
  absl::StatusOr<ProgramSpace> p =
      MakeProgramSpace("batch_matmul", {{"B", 3}, {"M", 7}, {"N", 19}, {"K", 11}});
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  const int pack = space.KnobIndex("C.pack_W");
  const int rows = space.KnobIndex("C.tile_i"), cols = space.KnobIndex("C.tile_j");
  const int parallel = space.KnobIndex("parallel");
  ASSERT_GE(pack, 0) << space.Describe();
  ASSERT_GE(rows, 0);
  ASSERT_GE(cols, 0);
  ASSERT_GE(parallel, 0);
  ASSERT_EQ(space.knob(pack).size(), 3) << space.Describe();  // 0, per call, per batch.
  absl::StatusOr<ProgramSpace> single =
      MakeProgramSpace("batch_matmul", {{"B", 1}, {"M", 7}, {"N", 19}, {"K", 11}});
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_EQ(single->space->knob(single->space->KnobIndex("C.pack_W")).size(), 2);

  const codegen::Target host = codegen::HostTarget();
  absl::StatusOr<std::vector<runtime::NDArray>> ref =
      RunConfig(*p->tmpl, p->workload, host, nullptr, 7);
  ASSERT_TRUE(ref.ok()) << ref.status();
  int checked = 0;
  for (int64_t r = 0; r < space.knob(rows).size(); r += 2) {
    for (int64_t c = 0; c < space.knob(cols).size(); ++c) {
      std::vector<int64_t> choices = space.Decompose((space.size() - 1) / 3);
      choices[rows] = r;
      choices[cols] = c;
      choices[pack] = 2;
      choices[parallel] = (r + c) % 2;
      absl::StatusOr<Config> config = space.Get(space.Compose(choices));
      ASSERT_TRUE(config.ok());
      ASSERT_EQ(config->Other("C.pack_W").value_or(-1), 3) << config->ToJson();
      const int64_t b = config->Split("C.tile_j").value()[1];
      absl::StatusOr<std::string> ir_text = LoweredText(*p, *config);
      ASSERT_TRUE(ir_text.ok()) << ir_text.status();
      // One batch's copy (not the whole [.. × 3 × ..] tensor).
      const std::string one_batch =
          absl::StrCat("allocate W_packed[float32 * ", (19 + b - 1) / b, " * 1 * 11 * ", b, "]");
      EXPECT_TRUE(absl::StrContains(*ir_text, one_batch))
          << config->ToJson() << " lacks " << one_batch << "\n"
          << *ir_text;
      absl::StatusOr<std::vector<runtime::NDArray>> out =
          RunConfig(*p->tmpl, p->workload, host, &*config, 7);
      ASSERT_TRUE(out.ok()) << config->ToJson() << ": " << out.status();
      EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0)
          << config->ToJson();
      ++checked;
    }
  }
  EXPECT_GT(checked, 8);
}

// Lowers and runs kConfigsPerSpace configs of `p`, spread over its space, with knob `knob` set
// to its choice `choice`: `check_ir` looks at each lowered kernel, and each result must match
// the unscheduled program's.
void CheckConfigsWithChoice(
    const ProgramSpace& p, const std::string& knob, int64_t choice,
    const std::function<void(const std::string& ir_text, const Config& config)>& check_ir) {
  const ConfigSpace& space = *p.space;
  const int k = space.KnobIndex(knob);
  ASSERT_GE(k, 0) << knob << " in " << space.Describe();
  const codegen::Target host = codegen::HostTarget();
  absl::StatusOr<std::vector<runtime::NDArray>> ref =
      RunConfig(*p.tmpl, p.workload, host, nullptr, 9);
  ASSERT_TRUE(ref.ok()) << ref.status();
  for (int i = 0; i < kConfigsPerSpace; ++i) {
    std::vector<int64_t> choices = space.Decompose((space.size() - 1) / 5 * i);
    choices[k] = choice;
    absl::StatusOr<Config> config = space.Get(space.Compose(choices));
    ASSERT_TRUE(config.ok());
    absl::StatusOr<std::string> ir_text = LoweredText(p, *config);
    ASSERT_TRUE(ir_text.ok()) << ir_text.status();
    check_ir(*ir_text, *config);
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        RunConfig(*p.tmpl, p.workload, host, &*config, 9);
    ASSERT_TRUE(out.ok()) << config->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0) << config->ToJson();
  }
}

// `Y.order` = 2 (a channel-blocked convolution, which reuses its input along the output
// channels) runs the output channel blocks' loop inside the pixels' tile loops: the fused
// parallel loop names y.o before f.o, where order 0 names f.o first. Offered only there: not to a
// depthwise layer (its channels index every read), a dense layer (two axes) or a convolution
// with one block of output channels. Configs spread
// over the 1×1 stride-2 space (a tail in x) match the unscheduled program with either order.
TEST(ProgramTemplate, OrderSweep_OutputChannelsInsideThePixelTilesAndMatches) {
  absl::StatusOr<ProgramSpace> p = MakeProgramSpace("conv2d_blocked", {{"N", 1},
                                                                       {"C", 2},
                                                                       {"CB", 16},
                                                                       {"H", 8},
                                                                       {"W", 9},
                                                                       {"F", 3},
                                                                       {"FB", 16},
                                                                       {"R", 1},
                                                                       {"S", 1},
                                                                       {"St", 2},
                                                                       {"Pd", 0}});
  ASSERT_TRUE(p.ok()) << p.status();
  const int order = p->space->KnobIndex("Y.order");
  ASSERT_GE(order, 0) << p->space->Describe();
  EXPECT_EQ(p->space->knob(order).size(), 3) << p->space->Describe();
  // The first loop's header: the fused tile loop, its name the fused loops in order.
  auto first_loop = [](const std::string& ir) {
    const size_t at = ir.find_first_of("fp");  // "for" or "parallel"
    return at == std::string::npos ? std::string() : ir.substr(at, ir.find('\n', at) - at);
  };
  for (const int64_t choice : {0, 2}) {
    int ordered = 0;  // Configs with tile loops (one tile over the whole output has none).
    CheckConfigsWithChoice(*p, "Y.order", choice, [&](const std::string& ir, const Config& c) {
      const std::string loop = first_loop(ir);
      const size_t f = loop.find("f.o"), y = loop.find("y.o");
      if (absl::StartsWith(ir, "allocate Y.local")) return;
      ASSERT_NE(f, std::string::npos) << c.ToJson() << "\n" << ir;
      ASSERT_NE(y, std::string::npos) << c.ToJson() << "\n" << ir;
      ++ordered;
      if (choice == 2) {
        EXPECT_GT(f, y) << c.ToJson() << "\n" << loop;
      } else {
        EXPECT_LT(f, y) << c.ToJson() << "\n" << loop;
      }
    });
    EXPECT_GE(ordered, 3) << "order " << choice;
  }
  for (const ProgramCase& other : std::vector<ProgramCase>{
           {"depthwise_blocked",
            {{"N", 1}, {"C", 2}, {"H", 9}, {"W", 7}, {"R", 3}, {"S", 3}, {"St", 1}, {"Pd", 1}}},
           {"dense", {{"M", 16}, {"N", 32}, {"K", 64}}},
           // One block of output channels: order 2 would be order 0 again.
           {"conv2d_blocked",
            {{"N", 1},
             {"C", 2},
             {"CB", 16},
             {"H", 8},
             {"W", 9},
             {"F", 1},
             {"FB", 24},
             {"R", 1},
             {"S", 1},
             {"St", 1},
             {"Pd", 0}}}}) {
    absl::StatusOr<ProgramSpace> q = MakeProgramSpace(other.file, other.shapes);
    ASSERT_TRUE(q.ok()) << other.file << ": " << q.status();
    for (int k = 0; k < q->space->num_knobs(); ++k) {
      if (!absl::EndsWith(q->space->knob(k).name(), ".order")) continue;
      EXPECT_EQ(q->space->knob(k).size(), 2) << other.file << ": " << q->space->Describe();
    }
  }
}

// A block of 24 output channels (MobileNetV2's 96->24 pointwise layer) may be one vector tile:
// the space offers 24 beside the powers of two, and such configs run it as vectors of 16 and 8
// lanes (never one of 24, which LLVM spills lane by lane) and match the unscheduled program,
// with a row tail (x: 7).
TEST(ProgramTemplate, VectorTileOfTwoPieces_SixteenAndEightLanesAndMatches) {
  absl::StatusOr<ProgramSpace> p = MakeProgramSpace("conv2d_blocked", {{"N", 1},
                                                                       {"C", 2},
                                                                       {"CB", 16},
                                                                       {"H", 5},
                                                                       {"W", 7},
                                                                       {"F", 1},
                                                                       {"FB", 24},
                                                                       {"R", 1},
                                                                       {"S", 1},
                                                                       {"St", 1},
                                                                       {"Pd", 0}});
  ASSERT_TRUE(p.ok()) << p.status();
  const int fb = p->space->KnobIndex("Y.tile_fb");
  ASSERT_GE(fb, 0) << p->space->Describe();
  const int64_t whole = p->space->knob(fb).size() - 1;  // The last choice: all 24.
  CheckConfigsWithChoice(*p, "Y.tile_fb", whole, [](const std::string& ir, const Config& c) {
    EXPECT_EQ((*c.Split("Y.tile_fb"))[1], 24) << c.ToJson();
    EXPECT_FALSE(absl::StrContains(ir, ", 1, 24)")) << c.ToJson() << "\n" << ir;
    EXPECT_TRUE(absl::StrContains(ir, ", 1, 16)")) << c.ToJson() << "\n" << ir;
    EXPECT_TRUE(absl::StrContains(ir, ", 1, 8)")) << c.ToJson() << "\n" << ir;
  });
}

// An RGB image's padding (the stem: a block of CB = 3 channels, too short for a power-of-two
// vector) at the top level runs each padded row of pixels and channels as one run in vectors
// of 16: the row's middle (elements 16..31 of 51: pixels 3..13 are inside the image) is copied
// as a whole vector with no select, where it was a branch per pixel. Per tile (a window of 7
// pixels, 21 elements a row) the rows are runs too. Those configs match the unscheduled
// program.
TEST(ProgramTemplate, ShortChannelBlockPadding_RowRunInVectorsAndMatches) {
  const ProgramCase stem = SmallStem();
  absl::StatusOr<ProgramSpace> p = MakeProgramSpace(stem.file, stem.shapes);
  ASSERT_TRUE(p.ok()) << p.status();
  CheckConfigsWithChoice(*p, "P.at", 0, [](const std::string& ir, const Config& c) {
    EXPECT_TRUE(absl::StrContains(ir, "+ 16), 1, 16)] = X[ramp(")) << c.ToJson() << "\n" << ir;
  });
  CheckConfigsWithChoice(*p, "P.at", 1, [](const std::string& ir, const Config& c) {
    // No loop over the pixels of a row: they are fused with their channels.
    EXPECT_FALSE(absl::StrContains(ir, "for (w, ")) << c.ToJson() << "\n" << ir;
  });
}

// A uint8 input's padding in blocks of 16 channels (16 bytes a pixel, a quarter of a register)
// runs each padded row as one run of registers of 64 bytes, its ends split down to whole pixels:
// at 6 pixels a row (8 padded, 128 bytes), bytes 16..63 and 64..111 are copied as two vectors of
// 48 with no select, where each pixel was a vector of 16 under a branch. Those configs match the
// unscheduled program.
TEST(ProgramTemplate, ByteChannelBlockPadding_RowRunInRegistersAndMatches) {
  absl::StatusOr<ProgramSpace> p =
      MakeProgramSpace("conv2d_u8s8_vnni", {{"N", 1}, {"C", 1}, {"H", 5}, {"W", 6}, {"F", 2}},
                       codegen::HostTarget(), ir::DataType::Int(32));
  ASSERT_TRUE(p.ok()) << p.status();
  CheckConfigsWithChoice(*p, "P.at", 0, [](const std::string& ir, const Config& c) {
    EXPECT_TRUE(absl::StrContains(ir, "+ 16), 1, 48)] = X[ramp(")) << c.ToJson() << "\n" << ir;
    EXPECT_TRUE(absl::StrContains(ir, "+ 64), 1, 48)] = X[ramp(")) << c.ToJson() << "\n" << ir;
    EXPECT_FALSE(absl::StrContains(ir, ", 1, 16)] = X[ramp(")) << c.ToJson() << "\n" << ir;
  });
}

// A strided depthwise and a strided 3×3 convolution with padding 1 and tails.
std::vector<ProgramCase> StridedPaddedConvolutions() {
  return {
      {"depthwise_blocked",
       {{"N", 1}, {"C", 2}, {"H", 11}, {"W", 9}, {"R", 3}, {"S", 3}, {"St", 2}, {"Pd", 1}}},
      {"conv2d_blocked",
       {{"N", 1},
        {"C", 2},
        {"CB", 4},
        {"H", 9},
        {"W", 7},
        {"F", 2},
        {"FB", 8},
        {"R", 3},
        {"S", 3},
        {"St", 2},
        {"Pd", 1}}},
  };
}

// `P.at` = 1 computes a convolution's padding inside the reduction's parallel tile loop, just
// the region the tile reads: the padded buffer is then allocated inside that loop (smaller than
// the whole padded input), and configs with it match the unscheduled program, for a strided
// depthwise and a strided 3×3 convolution with tails.
TEST(ProgramTemplate, PaddingInTile_ComputedPerTileAndMatches) {
  for (const ProgramCase& c : StridedPaddedConvolutions()) {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(c.file, c.shapes);
    ASSERT_TRUE(p.ok()) << p.status();
    CheckConfigsWithChoice(*p, "P.at", 1, [&](const std::string& ir, const Config& config) {
      // The padded buffer is allocated after (inside) the first loop, not before it, unless
      // one tile covers the whole output: no tile loop is left then (the accumulator is
      // allocated at the top level), and the tile's region is the whole padded input.
      const size_t alloc = ir.find("allocate P[");
      const size_t loop = ir.find_first_of("fp");  // "for" or "parallel"
      EXPECT_NE(alloc, std::string::npos) << ir;
      const bool one_tile = absl::StrContains(ir, "\nallocate Y.local");
      EXPECT_TRUE(alloc > loop || one_tile) << c.file << " " << config.ToJson() << "\n" << ir;
    });
  }
}

// `P.at` = 2 inlines a convolution's padding into the reduction: loop partitioning peels the
// border tiles off (their outer loops stay out of the fused loop), the interior reads the input
// with no select, and inside the border tiles the taps that fall in the padding are dropped, so
// no select is left at all. Configs spread over each space (fp32 and int8, strided, tails, a
// depthwise layer, the 3-channel stem) match the unscheduled program.
TEST(ProgramTemplate, PaddingInlined_NoSelectLeftAndMatches) {
  std::vector<ProgramCase> cases = StridedPaddedConvolutions();
  cases.push_back(SmallStem());
  for (const ProgramCase& c : cases) {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(c.file, c.shapes);
    ASSERT_TRUE(p.ok()) << p.status();
    CheckConfigsWithChoice(*p, "P.at", 2, [&](const std::string& ir, const Config& config) {
      EXPECT_FALSE(absl::StrContains(ir, "allocate P[")) << c.file << " " << config.ToJson();
      EXPECT_FALSE(absl::StrContains(ir, "select(")) << c.file << " " << config.ToJson() << "\n"
                                                     << ir;
    });
  }
  absl::StatusOr<ProgramSpace> int8 =
      MakeProgramSpace("conv2d_u8s8_vnni", {{"N", 1}, {"C", 1}, {"H", 5}, {"W", 6}, {"F", 2}},
                       codegen::HostTarget(), ir::DataType::Int(32));
  ASSERT_TRUE(int8.ok()) << int8.status();
  CheckConfigsWithChoice(*int8, "P.at", 2, [&](const std::string& ir, const Config& config) {
    EXPECT_FALSE(absl::StrContains(ir, "allocate P[")) << config.ToJson();
    EXPECT_FALSE(absl::StrContains(ir, "select(")) << config.ToJson() << "\n" << ir;
  });
}

// On a one-pixel image only the 3×3 filter's centre tap reads the image: with the padding
// inlined, every other tap is dropped, so no loop over the filter's rows or columns is left
// (each was partitioned down to the centre's single iteration).
TEST(ProgramTemplate, PaddingInlined_TapsInThePaddingDropped) {
  absl::StatusOr<ProgramSpace> p = MakeProgramSpace("conv2d_blocked", {{"N", 1},
                                                                       {"C", 2},
                                                                       {"CB", 4},
                                                                       {"H", 1},
                                                                       {"W", 1},
                                                                       {"F", 1},
                                                                       {"FB", 8},
                                                                       {"R", 3},
                                                                       {"S", 3},
                                                                       {"St", 1},
                                                                       {"Pd", 1}});
  ASSERT_TRUE(p.ok()) << p.status();
  CheckConfigsWithChoice(*p, "P.at", 2, [](const std::string& ir, const Config& c) {
    EXPECT_FALSE(absl::StrContains(ir, "for (ry")) << c.ToJson() << "\n" << ir;
    EXPECT_FALSE(absl::StrContains(ir, "for (rx")) << c.ToJson() << "\n" << ir;
  });
}

// The padding is inlined only where its reader holds most of the program's work: into a
// convolution, not into a Winograd program's input transform (a light stage before the batched
// products), whose `P.at` keeps its two choices.
TEST(ProgramTemplate, PaddingInlined_OnlyWhereItsReaderHoldsTheWork) {
  auto choices = [](const std::string& file,
                    const absl::flat_hash_map<std::string, int64_t>& shapes) -> int64_t {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(file, shapes);
    EXPECT_TRUE(p.ok()) << p.status();
    if (!p.ok()) return -1;
    const int k = p->space->KnobIndex("P.at");
    EXPECT_GE(k, 0) << file << "\n" << p->space->Describe();
    return k < 0 ? -1 : p->space->knob(k).size();
  };
  EXPECT_EQ(choices("conv2d_winograd", {{"N", 1}, {"C", 1}, {"H", 7}, {"W", 6}, {"F", 2}}), 2);
  EXPECT_EQ(choices("conv2d_winograd_f2", {{"N", 1}, {"C", 2}, {"H", 5}, {"W", 6}, {"F", 1}}), 2);
  EXPECT_EQ(choices("conv2d_blocked", {{"N", 1},
                                       {"C", 1},
                                       {"CB", 8},
                                       {"H", 7},
                                       {"W", 6},
                                       {"F", 2},
                                       {"FB", 8},
                                       {"R", 3},
                                       {"S", 3},
                                       {"St", 1},
                                       {"Pd", 1}}),
            3);
}

// A padding of 0 (a 1×1 convolution, Pd = 0) leaves a guard that always holds: it is dropped
// (drop_guards.h) and the plain copy inlined, so no config copies the input first.
TEST(ProgramTemplate, PaddingOfZero_NoCopyOfTheInput) {
  absl::StatusOr<ProgramSpace> p = MakeProgramSpace("conv2d_blocked", {{"N", 1},
                                                                       {"C", 2},
                                                                       {"CB", 8},
                                                                       {"H", 5},
                                                                       {"W", 7},
                                                                       {"F", 2},
                                                                       {"FB", 8},
                                                                       {"R", 1},
                                                                       {"S", 1},
                                                                       {"St", 1},
                                                                       {"Pd", 0}});
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  EXPECT_LT(space.KnobIndex("P.at"), 0) << space.Describe();
  for (int i = 0; i < kConfigsPerSpace; ++i) {
    absl::StatusOr<Config> config = space.Get((space.size() - 1) / (kConfigsPerSpace - 1) * i);
    ASSERT_TRUE(config.ok());
    absl::StatusOr<std::string> ir_text = LoweredText(*p, *config);
    ASSERT_TRUE(ir_text.ok()) << ir_text.status();
    EXPECT_FALSE(absl::StrContains(*ir_text, "allocate P[")) << config->ToJson() << "\n"
                                                             << *ir_text;
  }
}

// GELU's erf is built from operations the vectorizer widens (its sign a factor, not a select
// around the argument's loads), so a dense + bias + GELU epilogue stores whole vectors.
TEST(ProgramTemplate, GeluEpilogue_Vectorized) {
  absl::StatusOr<ProgramSpace> p =
      MakeProgramSpace("dense_bias_gelu", {{"M", 5}, {"N", 48}, {"K", 19}});
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  int checked = 0;
  for (int i = 0; i < 4 * kConfigsPerSpace; ++i) {
    absl::StatusOr<Config> config = space.Get((space.size() - 1) / (4 * kConfigsPerSpace - 1) * i);
    ASSERT_TRUE(config.ok());
    absl::StatusOr<std::vector<int64_t>> tile = config->Split("Y.tile_j");
    ASSERT_TRUE(tile.ok()) << tile.status();
    if ((*tile)[1] < 4 || 48 % (*tile)[1] != 0) continue;  // Vectors of 4 or more, no tail.
    absl::StatusOr<std::string> ir_text = LoweredText(*p, *config);
    ASSERT_TRUE(ir_text.ok()) << ir_text.status();
    EXPECT_TRUE(absl::StrContains(*ir_text, "Y[ramp(")) << config->ToJson() << "\n" << *ir_text;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// Row fusion: where every stage reads its producers row for row (softmax over attention
// scores: depth 2, h and i; layer normalization: depth 1), the `Y.fuse_rows` knob computes all
// of them one block of rows at a time, each over just that block (a buffer of the block's
// size, allocated inside the block loop), and every block size matches the unscheduled
// program. A program whose reduction is already fused into its output's tile (dense + bias +
// ReLU), or of a single stage (the stencil), has no such knob.
TEST(ProgramTemplate, RowFusion_EveryStageComputedPerBlockOfRows) {
  struct Case {
    std::string file;
    absl::flat_hash_map<std::string, int64_t> shapes;
    std::string before, after;  // The buffer allocated per block: before, rows, after.
  };
  const std::vector<Case> cases = {
      {"attention_softmax",
       {{"Hd", 2}, {"L", 12}, {"D", 8}},
       "allocate S[float32 * 1 * ",
       " * 12]"},
      {"layer_norm", {{"N", 8}, {"D", 48}}, "allocate S[float32 * ", "]"},
  };
  const codegen::Target host = codegen::HostTarget();
  for (const Case& c : cases) {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(c.file, c.shapes);
    ASSERT_TRUE(p.ok()) << c.file << ": " << p.status();
    const ConfigSpace& space = *p->space;
    const int knob = space.KnobIndex("Y.fuse_rows");
    ASSERT_GE(knob, 0) << c.file << ": " << space.Describe();
    absl::StatusOr<std::vector<runtime::NDArray>> ref =
        RunConfig(*p->tmpl, p->workload, host, nullptr, 7);
    ASSERT_TRUE(ref.ok()) << ref.status();
    for (int64_t v = 1; v < space.knob(knob).size(); ++v) {
      for (int i = 0; i < 3; ++i) {
        std::vector<int64_t> choices = space.Decompose((space.size() - 1) / 3 * i);
        choices[knob] = v;
        absl::StatusOr<Config> config = space.Get(space.Compose(choices));
        ASSERT_TRUE(config.ok());
        const int64_t rows = *config->Other("Y.fuse_rows");
        ASSERT_GT(rows, 0);
        absl::StatusOr<std::string> ir_text = LoweredText(*p, *config);
        ASSERT_TRUE(ir_text.ok()) << ir_text.status();
        const std::string buffer = absl::StrCat(c.before, rows, c.after);
        EXPECT_TRUE(absl::StrContains(*ir_text, buffer)) << config->ToJson() << "\n" << *ir_text;
        absl::StatusOr<std::vector<runtime::NDArray>> out =
            RunConfig(*p->tmpl, p->workload, host, &*config, 7);
        ASSERT_TRUE(out.ok()) << c.file << " " << config->ToJson() << ": " << out.status();
        EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0)
            << c.file << " " << config->ToJson();
      }
    }
  }
  for (const auto& [file, shapes] :
       std::vector<std::pair<std::string, absl::flat_hash_map<std::string, int64_t>>>{
           {"dense_bias_relu", {{"M", 9}, {"N", 35}, {"K", 19}}},
           {"stencil5", {{"H", 11}, {"W", 29}}}}) {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(file, shapes);
    ASSERT_TRUE(p.ok()) << file << ": " << p.status();
    EXPECT_LT(p->space->KnobIndex("Y.fuse_rows"), 0) << file << ": " << p->space->Describe();
  }
}

// A copy packed per call whose source axis divides by 16 (attention's K, transposed for the
// vector axis j) is copied 16 x 16 blocks at a time through registers (codegen's transposed
// copies): with every vector tile of 16 lanes or more the results match.
TEST(ProgramTemplate, PackedCopyTransposedInBlocks_Matches) {
  absl::StatusOr<ProgramSpace> p =
      MakeProgramSpace("attention_softmax", {{"Hd", 2}, {"L", 64}, {"D", 32}});
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  const int pack = space.KnobIndex("S.pack_K");
  const int tile = space.KnobIndex("S.tile_j");
  ASSERT_GE(pack, 0) << space.Describe();
  ASSERT_GE(tile, 0) << space.Describe();
  const codegen::Target host = codegen::HostTarget();
  absl::StatusOr<std::vector<runtime::NDArray>> ref =
      RunConfig(*p->tmpl, p->workload, host, nullptr, 3);
  ASSERT_TRUE(ref.ok()) << ref.status();
  int checked = 0;
  for (int64_t t = 0; t < space.knob(tile).size(); ++t) {
    std::vector<int64_t> choices = space.Decompose((space.size() - 1) / 5 * (t % 5));
    choices[tile] = t;
    choices[pack] = 1;
    absl::StatusOr<Config> config = space.Get(space.Compose(choices));
    ASSERT_TRUE(config.ok());
    if ((*config->Split("S.tile_j"))[1] < 16) continue;
    absl::StatusOr<std::string> ir_text = LoweredText(*p, *config);
    ASSERT_TRUE(ir_text.ok()) << ir_text.status();
    // The copy's source axis unrolled by 16: its last unrolled copy reads 15 past the first.
    EXPECT_TRUE(absl::StrContains(*ir_text, " + 15), 32, ")) << config->ToJson() << *ir_text;
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        RunConfig(*p->tmpl, p->workload, host, &*config, 3);
    ASSERT_TRUE(out.ok()) << config->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0) << config->ToJson();
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

// An output unblocked from a channel-blocked layout (conv2d_nchwc.te's Y[n, f, y, x] =
// Yp[n, f / 16, y, x, f % 16]) has its channels unrolled by 16 beside a vector of 16 or more
// (codegen copies them through a transpose in registers); with a narrower vector it does not.
// Both match the unscheduled program.
TEST(ProgramTemplate, UnblockedOutput_ChannelsUnrolledForTranspose_Matches) {
  absl::StatusOr<ProgramSpace> p =
      MakeProgramSpace("conv2d_nchwc", {{"N", 1}, {"C", 16}, {"H", 3}, {"W", 24}, {"F", 32}});
  ASSERT_TRUE(p.ok()) << p.status();
  const ConfigSpace& space = *p->space;
  const int tile = space.KnobIndex("Y.tile_x");
  ASSERT_GE(tile, 0) << space.Describe();
  const codegen::Target host = codegen::HostTarget();
  absl::StatusOr<std::vector<runtime::NDArray>> ref =
      RunConfig(*p->tmpl, p->workload, host, nullptr, 3);
  ASSERT_TRUE(ref.ok()) << ref.status();
  bool wide = false, narrow = false;
  for (int64_t t = 0; t < space.knob(tile).size(); ++t) {
    std::vector<int64_t> choices = space.Decompose((space.size() - 1) / 3);
    choices[tile] = t;
    absl::StatusOr<Config> config = space.Get(space.Compose(choices));
    ASSERT_TRUE(config.ok());
    const int64_t lanes = (*config->Split("Y.tile_x"))[1];
    absl::StatusOr<std::string> ir_text = LoweredText(*p, *config);
    ASSERT_TRUE(ir_text.ok()) << ir_text.status();
    // The 16th channel of a block: an unrolled copy reading 15 past the first, stride 16, where
    // the vector tile is whole blocks of 16 (not 8, nor 24 = 16 + 8).
    const bool unrolled = absl::StrContains(*ir_text, " + 15), 16, ");
    EXPECT_EQ(unrolled, lanes % 16 == 0) << config->ToJson() << "\n" << *ir_text;
    (lanes % 16 == 0 ? wide : narrow) = true;
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        RunConfig(*p->tmpl, p->workload, host, &*config, 3);
    ASSERT_TRUE(out.ok()) << config->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0) << config->ToJson();
  }
  EXPECT_TRUE(wide && narrow);
}

// A chain of stages that each read their producer twice would inline into 2^40 nodes: the
// large ones are computed at the top level instead, and the space still builds and runs.
TEST(ProgramTemplate, DoublingChain_NotInlinedPastTheBound) {
  std::string text = "X = input(float32, [N])\nS0[i] = X[i] * 0.5\n";
  for (int s = 1; s <= 40; ++s) {
    absl::StrAppend(&text, "S", s, "[i] = S", s - 1, "[i] + S", s - 1, "[i] * 0.5\n");
  }
  absl::StrAppend(&text, "Y[i] = S40[i] + 1.0\n");
  auto t = ProgramTemplate::Create("chain", text);
  ASSERT_TRUE(t.ok()) << t.status();
  auto w = (*t)->MakeWorkload({37}, ir::DataType::Float(32));
  ASSERT_TRUE(w.ok()) << w.status();
  CheckSpace(**t, *w);
}

TEST(ProgramTemplate, Identity_LayoutFreeHashAndNamedArgs) {
  auto a = ProgramTemplate::Create("d", "A = input(float32, [M, K])\nB[i, k] = A[i, k] * 2\n");
  auto b = ProgramTemplate::Create("d", "A=input(float32,[M,K]) # same\nB[i,k]=(A[i,k]*2)");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->name(), (*b)->name());
  EXPECT_EQ((*a)->args_doc(), "M,K");
  auto c = ProgramTemplate::Create("d", "A = input(float32, [M, K])\nB[i, k] = A[i, k] * 3\n");
  ASSERT_TRUE(c.ok());
  EXPECT_NE((*a)->name(), (*c)->name());
  std::string name, hash;
  ASSERT_TRUE(ParseProgramTemplateName((*a)->name(), &name, &hash).ok());
  EXPECT_EQ(name, "d");
  EXPECT_EQ(hash.size(), 16u);
  EXPECT_EQ(*(*a)->ArgsFor({{"K", 3}, {"M", 2}}), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(absl::StrContains((*a)->ArgsFor({{"M", 2}}).status().message(),
                                "shape variable K has no value"));
  EXPECT_TRUE(absl::StrContains((*a)->ArgsFor({{"M", 2}, {"K", 2}, {"Q", 1}}).status().message(),
                                "'Q' is not a shape variable"));
  EXPECT_EQ(ProgramTemplate::Create("bad name", "A = input(float32, [M])").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(ProgramTemplate::Create("p", "A = input(").status().message(),
                                "line 1, column 11"));
}

// The PTX of `config` of a program's generated GPU space.
absl::StatusOr<std::string> GpuPtx(const ProgramSpace& p, const Config& config,
                                   const codegen::Target& cuda) {
  absl::StatusOr<Instance> inst = p.tmpl->Instantiate(p.workload, cuda, &config);
  if (!inst.ok()) return inst.status();
  absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*inst->sch, inst->args, "kernel");
  if (!f.ok()) return f.status();
  absl::StatusOr<codegen::GpuKernel> k = codegen::BuildGpuKernel(*f, cuda);
  if (!k.ok()) return k.status();
  return k->ptx;
}

// The generated GPU schedules use the memory hierarchy: with `shared` on, a tiled reduction
// stages what it reads in shared memory, filled by the whole block and fenced by barriers; a
// row-wise program keeps its intermediate rows in shared memory and reduces each row across
// the block's threads, at every thread count. Every such kernel matches the unscheduled
// program under host emulation (which runs threads in lockstep between barriers, so a missing
// barrier gives wrong results).
TEST(GpuGeneratedSpace, SharedStagingAndRowsAcrossThreads_PtxAndMatch) {
  struct Case {
    std::string file;
    absl::flat_hash_map<std::string, int64_t> shapes;
    std::string knob;  // Forced to each of its values but the first ("shared": on).
  };
  const std::vector<Case> cases = {
      {"dense_bias_gelu", {{"M", 16}, {"N", 32}, {"K", 24}}, "Y.shared"},
      {"conv2d_bias_relu", {{"N", 1}, {"C", 3}, {"H", 8}, {"W", 8}, {"F", 4}}, "Z.shared"},
      {"max_pool", {{"N", 1}, {"C", 4}, {"H", 11}, {"W", 9}}, "Y.shared"},
      {"attention_softmax", {{"Hd", 2}, {"L", 12}, {"D", 8}}, "Y.threads"},
      {"layer_norm", {{"N", 4}, {"D", 45}}, "Y.threads"},
  };
  absl::StatusOr<codegen::Target> cuda = codegen::ParseTarget("cuda -arch=sm_90");
  ASSERT_TRUE(cuda.ok());
  for (const Case& c : cases) {
    absl::StatusOr<ProgramSpace> p = MakeProgramSpace(c.file, c.shapes, *cuda);
    ASSERT_TRUE(p.ok()) << c.file << ": " << p.status();
    const ConfigSpace& space = *p->space;
    const int knob = space.KnobIndex(c.knob);
    ASSERT_GE(knob, 0) << c.file << ": " << space.Describe();
    absl::StatusOr<std::vector<runtime::NDArray>> ref =
        RunConfig(*p->tmpl, p->workload, codegen::HostTarget(), nullptr, 5);
    ASSERT_TRUE(ref.ok()) << ref.status();
    int built = 0;
    for (int64_t v = 1; v < space.knob(knob).size(); ++v) {
      for (int i = 0; i < 4; ++i) {
        std::vector<int64_t> choices = space.Decompose((space.size() - 1) / 4 * i);
        choices[knob] = v;
        absl::StatusOr<Config> config = space.Get(space.Compose(choices));
        ASSERT_TRUE(config.ok());
        absl::StatusOr<std::string> ptx = GpuPtx(*p, *config, *cuda);
        if (ptx.status().code() == absl::StatusCode::kFailedPrecondition) continue;  // Limits.
        ASSERT_TRUE(ptx.ok()) << c.file << " " << config->ToJson() << ": " << ptx.status();
        ++built;
        EXPECT_TRUE(absl::StrContains(*ptx, ".shared")) << c.file << " " << config->ToJson();
        EXPECT_TRUE(absl::StrContains(*ptx, "bar.sync")) << c.file << " " << config->ToJson();
        absl::StatusOr<std::vector<runtime::NDArray>> out =
            RunConfig(*p->tmpl, p->workload, *cuda, &*config, 5);
        ASSERT_TRUE(out.ok()) << c.file << " " << config->ToJson() << ": " << out.status();
        EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0)
            << c.file << " " << config->ToJson();
      }
    }
    EXPECT_GT(built, 0) << c.file;
  }
}

}  // namespace
}  // namespace tunefarm::tuner
