// AutoTVM logs against the real template spaces: every converted workload of the test log is
// exactly the template's own (args and FLOP count), translated configs resolve to points of
// the template's space, and a task's seeds are its translated picks, best first.
#include "tuner/tuning/autotvm_seed.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "db/autotvm_log.h"
#include "gtest/gtest.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {
namespace {

constexpr char kTestLog[] = "tests/testdata/autotvm/tvm_x86.log";

std::string ReadTestLog() {
  std::ifstream in(kTestLog);
  EXPECT_TRUE(in.good()) << "cannot read " << kTestLog;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TuneTask Dense64() {
  absl::StatusOr<TuneTask> t = MakeTask("dense", {64, 64, 64}, "float32", "llvm", "cpu-test");
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

TEST(ConfigIndexOf, EveryPointOfASpace_RoundTrips) {
  TuneTask task = Dense64();
  for (int64_t i : {int64_t{0}, int64_t{1}, task.space->size() / 3, task.space->size() - 1}) {
    absl::StatusOr<Config> c = task.space->Get(i);
    ASSERT_TRUE(c.ok());
    absl::StatusOr<int64_t> back = ConfigIndexOf(*task.space, c->ToJson());
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, i);
  }
}

TEST(ConfigIndexOf, MissingKnobOrForeignValue_NotFound) {
  TuneTask task = Dense64();
  EXPECT_EQ(ConfigIndexOf(*task.space, R"({"tile_y":[-1,8]})").status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<int64_t> odd = ConfigIndexOf(
      *task.space,
      R"({"tile_y":[-1,3],"tile_x":[-1,8],"tile_k":[-1,4],"order":[0,1],"unroll_k":"none","parallel":1})");
  EXPECT_EQ(odd.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(odd.status().message().find("tile_y [-1,3]"), std::string::npos) << odd.status();
  EXPECT_EQ(ConfigIndexOf(*task.space, "[1,2]").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ConfigIndexOf(*task.space, "not json").status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The heart of the conversion: what import-log stores is what a tune of the template records.
TEST(Resolver, TestLog_ConvertedWorkloadsAreTheTemplatesOwn) {
  db::AutotvmImportOptions options;
  options.resolve = MakeAutotvmConfigResolver();
  std::istringstream in(ReadTestLog());
  std::string line;
  int converted = 0, raw = 0, translated = 0, approximate = 0, untranslated = 0;
  while (std::getline(in, line)) {
    if (db::IsAutotvmCommentOrBlank(line)) continue;
    db::AutotvmLineInfo info;
    absl::StatusOr<db::Record> r = db::ParseAutotvmLine(line, options, &info);
    ASSERT_TRUE(r.ok()) << r.status() << "\n" << line;
    if (!info.converted) {
      ++raw;
      continue;
    }
    ++converted;
    absl::StatusOr<TuneTask> task = MakeTaskFor(r->workload, "llvm", "cpu-test");
    ASSERT_TRUE(task.ok()) << task.status();
    const db::Workload own = task->DbWorkload();
    EXPECT_EQ(own.template_name, r->workload.template_name);
    EXPECT_EQ(own.args, r->workload.args);
    EXPECT_EQ(own.flop, r->workload.flop) << own.args;
    if (info.translated) {
      ++translated;
      if (info.approximate) ++approximate;
      ASSERT_GE(r->config_index, 0);
      ASSERT_LT(r->config_index, task->space->size());
      // The stored config is the space's own text for that index (plus TVM's index etc.).
      absl::StatusOr<Config> c = task->space->Get(r->config_index);
      ASSERT_TRUE(c.ok());
      absl::StatusOr<int64_t> again = ConfigIndexOf(*task->space, r->config_json);
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(*again, r->config_index);
    } else {
      ++untranslated;
      EXPECT_LT(r->config_index, 0) << info.note;
    }
  }
  EXPECT_EQ(raw, 3);  // dilated conv, dense with a bias, transposed batch_matmul
  EXPECT_EQ(converted, 13);
  EXPECT_EQ(translated, 11);
  EXPECT_EQ(approximate, 1);
  EXPECT_EQ(untranslated, 2);  // tile_ow 28 beyond conv2d_nchwc's 16, and depthwise
}

TEST(Resolver, Conv2dNchwcLine_KnobsOfTheTemplate) {
  db::AutotvmImportOptions options;
  options.resolve = MakeAutotvmConfigResolver();
  std::istringstream in(ReadTestLog());
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"index\": 3004") == std::string::npos) continue;
    absl::StatusOr<db::Record> r = db::ParseAutotvmLine(line, options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->workload.template_name, "conv2d_nchwc");
    EXPECT_EQ(r->workload.args, R"([1,64,56,56,64,3,3,1,1,"float32"])");
    EXPECT_EQ(r->workload.flop, 2.0 * 64 * 56 * 56 * 64 * 9);
    EXPECT_NE(r->config_json.find(R"("tile_ic":[-1,8])"), std::string::npos) << r->config_json;
    EXPECT_NE(r->config_json.find(R"("unroll_kernel":"unroll")"), std::string::npos);
    EXPECT_NE(r->config_json.find(R"("tvm_index":3004)"), std::string::npos);
    return;
  }
  FAIL() << "line with index 3004 not found";
}

TEST(SeedsFromAutotvmLog, Dense_TranslatedPicksBestFirst) {
  TuneTask task = Dense64();
  std::istringstream in(ReadTestLog());
  absl::StatusOr<AutotvmSeeds> seeds = SeedsFromAutotvmLog(in, task, 3);
  ASSERT_TRUE(seeds.ok()) << seeds.status();
  EXPECT_EQ(seeds->matching, 4);  // three dense_pack and one dense_nopack; the failed one not
  EXPECT_EQ(seeds->untranslated, 0);
  ASSERT_EQ(seeds->indices.size(), 3u);
  // Fastest: dense_pack index 4410 (tile_y [-1,2,4], tile_x [-1,2,32], tile_k [-1,8]).
  absl::StatusOr<Config> best = task.space->Get(seeds->indices[0]);
  ASSERT_TRUE(best.ok());
  EXPECT_EQ(*best->Split("tile_y"), (std::vector<int64_t>{16, 4}));
  EXPECT_EQ(*best->Split("tile_x"), (std::vector<int64_t>{2, 32}));
  EXPECT_EQ(*best->Split("tile_k"), (std::vector<int64_t>{8, 8}));
}

TEST(SeedsFromAutotvmLog, Conv_UntranslatedCountedNotSeeded) {
  absl::StatusOr<TuneTask> task =
      MakeTask("conv2d_nchwc", {1, 64, 56, 56, 64, 3, 3, 1, 1}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok()) << task.status();
  std::istringstream in(ReadTestLog());
  absl::StatusOr<AutotvmSeeds> seeds = SeedsFromAutotvmLog(in, *task, 16);
  ASSERT_TRUE(seeds.ok()) << seeds.status();
  EXPECT_EQ(seeds->matching, 3);
  EXPECT_EQ(seeds->untranslated, 1);
  EXPECT_EQ(seeds->indices.size(), 2u);
}

TEST(SeedsFromAutotvmLog, OtherWorkloadOrGarbage_NoSeeds) {
  absl::StatusOr<TuneTask> task = MakeTask("dense", {32, 32, 32}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok());
  std::istringstream in(ReadTestLog() + "\nnot json\n{\"input\": 3}\n");
  absl::StatusOr<AutotvmSeeds> seeds = SeedsFromAutotvmLog(in, *task, 16);
  ASSERT_TRUE(seeds.ok());
  EXPECT_EQ(seeds->matching, 0);
  EXPECT_TRUE(seeds->indices.empty());
  std::istringstream empty("");
  EXPECT_EQ(SeedsFromAutotvmLog(empty, *task, -1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tunefarm::tuner
