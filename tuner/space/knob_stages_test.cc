#include "tuner/space/knob_stages.h"

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

TEST(KnobStages, GroupedByTheNameBeforeTheDot_InFirstAppearanceOrder) {
  ConfigSpace space;
  space.DefineOther("P.at", {0, 1});
  space.DefineOther("D.tile_x", {1, 2, 4});
  space.DefineOther("parallel", {0, 1});  // A global knob: no stage.
  space.DefineOther("D.unroll", {0, 1});
  space.DefineOther("M.tile_f", {1});
  space.DefineOther("tile_y", {1, 2});  // A template's knob: no stage.
  space.DefineOther(".odd", {1, 2});    // No stage name before the dot.
  std::vector<KnobStage> stages = KnobStages(space);
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0].name, "P");
  EXPECT_EQ(stages[0].knobs, (std::vector<int>{0}));
  EXPECT_EQ(stages[1].name, "D");
  EXPECT_EQ(stages[1].knobs, (std::vector<int>{1, 3}));
  EXPECT_EQ(stages[2].name, "M");
  EXPECT_EQ(stages[2].knobs, (std::vector<int>{4}));
}

TEST(KnobStages, TemplateSpace_NoStages) {
  ConfigSpace space;
  space.DefineSplit("tile_y", 64, 2, SplitPolicy::kFactors);
  space.DefineOther("unroll", {0, 1});
  EXPECT_TRUE(KnobStages(space).empty());
  EXPECT_TRUE(KnobStages(ConfigSpace()).empty());
}

}  // namespace
}  // namespace tunefarm::tuner
