// Every template, on small shapes: random configs compile and match the unscheduled reference
// program, which itself matches a plain C++ loop for dense.
#include <random>
#include <set>
#include <string>
#include <vector>

#include "compiler/codegen/build.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_testing.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

using runtime::NDArray;

using Case = TemplateCase;

class TemplateTest : public ::testing::TestWithParam<Case> {};

TEST_P(TemplateTest, RandomConfigs_MatchReference) {
  const Case& c = GetParam();
  auto t = FindTemplate(c.name);
  ASSERT_TRUE(t.ok()) << t.status();
  auto w = (*t)->MakeWorkload(c.args, *ir::ParseDataType(c.dtype));
  ASSERT_TRUE(w.ok()) << w.status();
  ConfigSpace space;
  ASSERT_TRUE((*t)->DefineSpace(*w, codegen::HostTarget(), &space).ok());
  auto ref = RunConfig(**t, *w, codegen::HostTarget(), nullptr, 7);
  ASSERT_TRUE(ref.ok()) << ref.status();
  std::mt19937_64 rng(42);
  const int kConfigs = 12;
  for (int i = 0; i < kConfigs; ++i) {
    int64_t index = static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size()));
    auto cfg = space.Get(index);
    ASSERT_TRUE(cfg.ok());
    auto out = RunConfig(**t, *w, codegen::HostTarget(), &*cfg, 7);
    ASSERT_TRUE(out.ok()) << cfg->ToJson() << ": " << out.status();
    EXPECT_LE(runtime::MaxRelError(out->back(), ref->back(), 1e-4, 1e-4), 1.0)
        << c.name << " config " << cfg->ToJson();
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllTemplates, TemplateTest,
    ::testing::Values(Case{"dense", {24, 32, 20}}, Case{"dense", {7, 48, 33}},
                      Case{"batch_matmul", {3, 12, 16, 10}},
                      Case{"conv2d", {1, 6, 10, 12, 8, 3, 3, 1, 1}},
                      Case{"conv2d", {2, 4, 9, 9, 6, 3, 3, 2, 0}},
                      Case{"conv2d_nchwc", {1, 8, 10, 12, 16, 3, 3, 1, 1}},
                      Case{"conv2d_nchwc", {1, 4, 9, 9, 8, 3, 3, 2, 0}},
                      Case{"conv2d_nchwc_packed", {1, 32, 9, 10, 16, 3, 3, 1, 1}},
                      Case{"conv2d_nchwc_packed", {1, 16, 8, 8, 32, 1, 1, 2, 0}},
                      Case{"depthwise_conv2d", {1, 5, 11, 10, 3, 3, 1, 1}},
                      Case{"depthwise_conv2d", {1, 4, 10, 9, 3, 3, 1, 1}, "float16"},
                      Case{"conv2d", {1, 4, 8, 10, 6, 3, 3, 1, 1}, "float16"},
                      Case{"dense", {16, 24, 40}, "float16"},
                      Case{"depthwise_conv2d", {2, 3, 12, 12, 5, 5, 2, 2}},
                      Case{"softmax", {6, 40}}, Case{"bias_relu", {12, 48}}),
    [](const auto& info) { return TemplateCaseName(info.param, info.index); });

TEST(DenseTemplate, Reference_MatchesCppLoop) {
  auto t = *FindTemplate("dense");
  auto w = *t->MakeWorkload({5, 6, 7}, ir::DataType::Float(32));
  auto out = RunConfig(*t, w, codegen::HostTarget(), nullptr, 3);
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& a = (*out)[0];
  const auto& b = (*out)[1];
  for (int m = 0; m < 5; ++m) {
    for (int n = 0; n < 6; ++n) {
      double s = 0;
      for (int k = 0; k < 7; ++k) s += a.Get(m * 7 + k) * b.Get(n * 7 + k);
      EXPECT_NEAR((*out)[2].Get(m * 6 + n), s, 1e-4);
    }
  }
}

// A config whose space is not the template's (a bug upstream, a record of another workload)
// fails instantiation with Internal on every template and target: a template reads its knobs,
// builds its program and finds its stages only through Status-returning calls, so nothing in it
// can abort the job service.
TEST(Templates, ConfigOfAnotherSpace_InternalNotAbort) {
  const std::vector<Case> cases = {
      Case{"dense", {8, 16, 8}},
      Case{"batch_matmul", {2, 8, 16, 8}},
      Case{"conv2d", {1, 4, 8, 8, 8, 3, 3, 1, 1}},
      Case{"conv2d_nchwc", {1, 8, 8, 8, 16, 3, 3, 1, 1}},
      Case{"conv2d_nchwc_packed", {1, 16, 8, 8, 16, 3, 3, 1, 1}},
      Case{"depthwise_conv2d", {1, 4, 8, 8, 3, 3, 1, 1}},
      Case{"softmax", {4, 16}},
      Case{"bias_relu", {4, 16}},
      Case{"dense_splitk", {16, 8, 256}},
      Case{"dense_tensorcore", {32, 32, 32}, "float16"},
      Case{"batch_matmul_tensorcore", {2, 32, 32, 32}, "float16"},
      Case{"dense_u8s8_amx", {32, 32, 64}, "int8"},
      Case{"conv2d_u8s8_amx", {1, 64, 8, 8, 16, 3, 3, 1, 1}, "int8"},
  };
  std::set<std::string> covered;
  ConfigSpace foreign;
  foreign.DefineOther("not_a_knob_of_any_template", {1});
  auto cfg = foreign.Get(0);
  ASSERT_TRUE(cfg.ok());
  for (const Case& c : cases) {
    covered.insert(c.name);
    auto t = FindTemplate(c.name);
    ASSERT_TRUE(t.ok()) << t.status();
    auto w = (*t)->MakeWorkload(c.args, *ir::ParseDataType(c.dtype));
    ASSERT_TRUE(w.ok()) << c.name << ": " << w.status();
    for (const char* target : {"llvm", "cuda -arch=sm_80"}) {
      auto tgt = codegen::ParseTarget(target);
      ASSERT_TRUE(tgt.ok()) << tgt.status();
      auto inst = (*t)->Instantiate(*w, *tgt, &*cfg);
      EXPECT_EQ(inst.status().code(), absl::StatusCode::kInternal)
          << c.name << " on " << target << ": " << inst.status();
    }
  }
  for (const std::string& name : TemplateNames()) {
    EXPECT_TRUE(covered.count(name)) << "add a case for template " << name;
  }
}

TEST(TemplateError, WrapsOnce) {
  absl::Status inner = TemplateError("dense", absl::InvalidArgumentError("bad split"));
  EXPECT_EQ(inner.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(inner.message(), "template dense built an invalid program or schedule: bad split");
  EXPECT_EQ(TemplateError("dense", inner), inner);
}

TEST(Registry, BadSpecs_InvalidArgument) {
  EXPECT_EQ(FindTemplate("conv9d").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeWorkload("dense", {1024, -1, 5}, ir::DataType::Float(32)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeWorkload("dense", {1024, 5}, ir::DataType::Float(32)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeWorkload("dense", {4, 4, 4}, ir::DataType::Int(8)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      MakeWorkload("conv2d_nchwc_packed", {1, 24, 8, 8, 16, 3, 3, 1, 1}, ir::DataType::Float(32))
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      MakeWorkload("conv2d", {1, 3, 4, 4, 8, 7, 7, 1, 1}, ir::DataType::Float(32)).status().code(),
      absl::StatusCode::kInvalidArgument);  // 7x7 kernel on a 6x6 padded input.
}

}  // namespace
}  // namespace tunefarm::tuner
