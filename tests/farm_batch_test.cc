// End to end: a tracker and 3 workers (embedded LocalFarm, real sandboxes) measure 200
// distinct artifacts; every request gets exactly one result. Then kernels that segfault, loop
// forever, allocate without bound, compute wrongly or skip writes each get their error class
// while the workers keep serving.
#include <map>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "farm/farm_setup.h"
#include "farm/tracker_client.h"
#include "gtest/gtest.h"
#include "tests/farm_test_util.h"
#include "tracker/summary_table.h"

namespace tunefarm {
namespace {

using ::tunefarm::testing::KernelBytes;
using ::tunefarm::testing::VaddRequest;
using ::tunefarm::testing::Variant;

class FarmBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FarmSetupOptions options;
    options.num_workers = 3;
    options.key = "cpu-test";
    options.sandbox_memory_limit_mb = 1024;
    absl::StatusOr<std::unique_ptr<Farm>> farm = StartFarm(options);
    ASSERT_TRUE(farm.ok()) << farm.status();
    farm_ = std::move(*farm);
    client_ = farm_->client.get();
  }
  std::unique_ptr<Farm> farm_;
  TrackerClient* client_ = nullptr;
};

TEST_F(FarmBatchTest, MeasureBatch_200Artifacts_ExactlyOneResultEach) {
  const std::string candidate = KernelBytes("vadd_reversed");
  const std::string reference = KernelBytes("vadd");
  ASSERT_FALSE(candidate.empty());
  std::vector<v1::MeasureRequest> batch;
  for (int i = 0; i < 200; ++i) {
    batch.push_back(VaddRequest(absl::StrCat("batch/", i), Variant(candidate, i), reference));
  }
  std::map<std::string, int> seen;
  absl::StatusOr<std::vector<v1::MeasureResult>> results = client_->MeasureBatch(
      "job-batch", "cpu-test", 0, batch, absl::Seconds(120), [&](const v1::MeasureResult& r) {
        ++seen[r.request_id()];
        return absl::OkStatus();
      });
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 200u);
  std::set<std::string> workers;
  for (const v1::MeasureResult& r : *results) {
    EXPECT_EQ(r.error(), v1::ERROR_NONE) << r.request_id() << ": " << r.message();
    EXPECT_EQ(r.costs_s_size(), 2);
    workers.insert(r.worker_id());
  }
  EXPECT_EQ(seen.size(), 200u);
  for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << id;
  EXPECT_GE(workers.size(), 2u);  // the work was shared
  // Every result was acknowledged, so the tracker forgot the job: nothing more can arrive.
  auto late = client_->FetchResults("job-batch", absl::Milliseconds(200));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kNotFound) << late.status();
  absl::StatusOr<v1::FarmSummary> summary = client_->Summary();
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->results_total(), 200);
  EXPECT_NE(FormatSummaryTable(*summary).find("cpu-test"), std::string::npos);
  EXPECT_EQ(*client_->LiveDevices("cpu-test"), 3);
}

TEST_F(FarmBatchTest, MeasureBatch_FailingKernels_ErrorClassesAndServersSurvive) {
  const std::string reference = KernelBytes("vadd");
  std::map<std::string, v1::ErrorClass> want = {
      {"segfault", v1::RUNTIME_ERROR},   {"loop", v1::TIMEOUT},
      {"oom", v1::OUT_OF_MEMORY},        {"wrong", v1::WRONG_ANSWER},
      {"skip_writes", v1::WRONG_ANSWER}, {"bad_rc", v1::RUNTIME_ERROR},
  };
  std::vector<v1::MeasureRequest> batch;
  for (const auto& [name, error] : want) {
    v1::MeasureRequest r = VaddRequest(name, KernelBytes(name), reference);
    if (name == "loop") r.set_timeout_ms(1000);
    batch.push_back(r);
  }
  for (int i = 0; i < 6; ++i) {
    batch.push_back(
        VaddRequest(absl::StrCat("good/", i), Variant(KernelBytes("vadd"), 1000 + i), reference));
  }
  absl::StatusOr<std::vector<v1::MeasureResult>> results =
      client_->MeasureBatch("job-faults", "cpu-test", 0, batch, absl::Seconds(60));
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), batch.size());
  for (const v1::MeasureResult& r : *results) {
    if (absl::StartsWith(r.request_id(), "good/")) {
      EXPECT_EQ(r.error(), v1::ERROR_NONE) << r.request_id() << ": " << r.message();
    } else {
      EXPECT_EQ(r.error(), want[r.request_id()]) << r.request_id() << ": " << r.message();
      EXPECT_FALSE(r.message().empty());
    }
  }
  EXPECT_EQ(*client_->LiveDevices("cpu-test"), 3);
}

}  // namespace
}  // namespace tunefarm
