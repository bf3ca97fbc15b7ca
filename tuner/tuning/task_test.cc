// The one conversion from a logged workload back to a task.
#include "tuner/tuning/task.h"

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

TEST(ParseWorkloadArgs, IntegersThenDtype) {
  auto a = ParseWorkloadArgs("[1024, 512, 64, \"float16\"]");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->args, (std::vector<int64_t>{1024, 512, 64}));
  EXPECT_EQ(a->dtype, "float16");
  auto plain = ParseWorkloadArgs("[3,4]");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->dtype, "float32");
}

TEST(ParseWorkloadArgs, Malformed_InvalidArgument) {
  for (const char* bad : {"{}", "not json", "[1.5, 2]", "[\"float32\", 4]",
                          "[4, \"float32\", \"int8\"]", "[4, null]", "[4, [5]]", "[1e300]"}) {
    EXPECT_EQ(ParseWorkloadArgs(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(MakeTaskFor, RoundTripsDbWorkload) {
  auto task = MakeTask("dense", {16, 32, 8}, "float32", "llvm", "cpu");
  ASSERT_TRUE(task.ok()) << task.status();
  auto again = MakeTaskFor(task->DbWorkload(), "llvm", "cpu");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->workload.args, task->workload.args);
  EXPECT_EQ(again->DbWorkload().args, task->DbWorkload().args);
  EXPECT_EQ(again->space->size(), task->space->size());
  db::Workload unknown{"conv9d", "[1]", 0};
  EXPECT_EQ(MakeTaskFor(unknown, "llvm", "cpu").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tunefarm::tuner
