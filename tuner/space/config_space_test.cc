#include "tuner/space/config_space.h"

#include <set>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

TEST(SplitKnob, Factors_ExactDivisors) {
  SplitKnob k("t", 12, 2, SplitPolicy::kFactors);
  std::set<int64_t> inner;
  for (int64_t i = 0; i < k.size(); ++i) {
    auto f = k.Factors(i);
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0] * f[1], 12);
    inner.insert(f[1]);
  }
  EXPECT_EQ(inner, (std::set<int64_t>{1, 2, 3, 4, 6, 12}));
}

TEST(SplitKnob, PowerOfTwo_ThreeWay_CoversExtent) {
  SplitKnob k("t", 100, 3, SplitPolicy::kPowerOfTwo, 16);
  for (int64_t i = 0; i < k.size(); ++i) {
    auto f = k.Factors(i);
    EXPECT_GE(f[0] * f[1] * f[2], 100);
    EXPECT_LE(f[1], 16);
    EXPECT_LE(f[2], 16);
  }
  EXPECT_EQ(k.ValueJson(0), "[-1, 1, 1]");
}

TEST(ConfigSpace, HugeSpace_NotMaterialized_RoundTrips) {
  ConfigSpace s;
  for (int i = 0; i < 6; ++i)
    s.DefineSplit("s" + std::to_string(i), 1024, 3, SplitPolicy::kFactors);
  EXPECT_GT(s.size(), 1000000000);
  int64_t idx = s.size() - 12345;
  auto c = s.Get(idx);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(s.Compose(c->choices), idx);
  EXPECT_EQ(s.Get(s.size()).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(s.Get(-1).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(ConfigSpace, Constraint_AdmitsOnlyWhatEveryConstraintHolds_IndexDomainUnchanged) {
  ConfigSpace s;
  s.DefineSplit("tile_x", 8, 2, SplitPolicy::kFactors);  // Inner 1, 2, 4, 8.
  s.DefineSplit("tile_y", 8, 2, SplitPolicy::kFactors);
  s.DefineOther("unroll", {0, 1});
  EXPECT_TRUE(s.Admits(s.size() - 1));  // No constraint: everything.
  auto& x = dynamic_cast<const SplitKnob&>(s.knob(0));
  auto& y = dynamic_cast<const SplitKnob&>(s.knob(1));
  s.AddConstraint("tile", [&](const std::vector<int64_t>& c) {
    return x.Factors(c[0])[1] * y.Factors(c[1])[1] <= 8;
  });
  s.AddConstraint("unrolled_small", [&](const std::vector<int64_t>& c) {
    return c[2] == 0 || x.Factors(c[0])[1] <= 2;
  });
  ASSERT_EQ(s.num_constraints(), 2);
  EXPECT_EQ(s.constraint_name(1), "unrolled_small");
  EXPECT_EQ(s.size(), 32);
  int admitted = 0;
  for (int64_t i = 0; i < s.size(); ++i) {
    const std::vector<int64_t> c = s.Decompose(i);
    const int64_t tx = x.Factors(c[0])[1], ty = y.Factors(c[1])[1];
    const bool expected = tx * ty <= 8 && (c[2] == 0 || tx <= 2);
    EXPECT_EQ(s.Admits(i), expected) << i;
    EXPECT_EQ(s.Admits(c), expected) << i;
    EXPECT_TRUE(s.Get(i).ok()) << i;  // A rejected config is still a config.
    admitted += expected;
  }
  // tx * ty <= 8: 10 of the 16 pairs; unrolled, only tx <= 2: 7 of them.
  EXPECT_EQ(admitted, 17);
  EXPECT_TRUE(absl::StrContains(s.Describe(), "; constrained by tile, unrolled_small"))
      << s.Describe();
}

TEST(Config, ToJson_Readable) {
  ConfigSpace s;
  s.DefineSplit("tile", 8, 2, SplitPolicy::kFactors);
  s.DefineAnnotate("ann", {"none", "unroll"});
  s.DefineOther("vec", {4, 8});
  s.DefineReorder("order", {{0, 1}, {1, 0}});
  auto c = s.Get(s.Compose({2, 1, 0, 1}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->ToJson(),
            "{\"index\": " + std::to_string(c->index) +
                ", \"tile\": [-1, 4], \"ann\": \"unroll\", \"vec\": 4, \"order\": [1, 0]}");
  EXPECT_EQ(*c->Split("tile"), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(*c->Annotate("ann"), "unroll");
  EXPECT_EQ(*c->Other("vec"), 4);
  EXPECT_EQ(*c->Reorder("order"), (std::vector<int>{1, 0}));
  EXPECT_EQ(s.KnobFeatures(c->index).size(), 2u + 2u + 1u + 2u);
}

TEST(ConfigSpace, KnobNotDefinedOrOfAnotherKind_InternalNotAbort) {
  ConfigSpace s;
  s.DefineSplit("tile", 8, 2, SplitPolicy::kFactors);
  auto c = s.Get(0);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->Split("tile_y").status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(c->Other("tile").status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(c->Annotate("tile").status().message().find("another kind"), absl::string_view::npos);
}

}  // namespace
}  // namespace tunefarm::tuner
