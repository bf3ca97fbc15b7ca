#include "tuner/tuning/result_record.h"

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

class ResultRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = MakeTask("bias_relu", {4, 16}, "float32", "llvm", "cpu-test");
    ASSERT_TRUE(t.ok()) << t.status();
    task_ = *std::move(t);
    context_.db_job_id = 7;
    context_.tuner_version = "tunefarm test";
    context_.now = absl::UnixEpoch() + absl::Seconds(1000);
  }
  TuneTask task_;
  RecordContext context_;
};

TEST_F(ResultRecordTest, Success_CostsDeviceAndContextStored) {
  v1::MeasureResult r;
  r.set_request_id("req-1");
  r.add_costs_s(2e-3);
  r.add_costs_s(1e-3);
  v1::DeviceDescription d;
  d.set_cpu_model("Zen 5");
  d.set_cores(2);
  context_.device = d;
  db::Record rec = RecordFromResult(task_, 3, r, context_);
  EXPECT_EQ(rec.error, db::ErrorClass::kOk);
  EXPECT_EQ(rec.costs, (std::vector<double>{2e-3, 1e-3}));
  EXPECT_EQ(rec.config_index, 3);
  EXPECT_EQ(rec.device_key, "cpu-test");
  EXPECT_EQ(rec.device.cpu_model, "Zen 5");
  EXPECT_EQ(rec.device.cores, 2);
  EXPECT_EQ(rec.job_id, 7);
  EXPECT_EQ(rec.tuner_version, "tunefarm test");
  EXPECT_DOUBLE_EQ(rec.timestamp, 1000.0);
  EXPECT_EQ(rec.request_id, "req-1");
  EXPECT_EQ(rec.workload.template_name, "bias_relu");
}

TEST_F(ResultRecordTest, EmulatedDevice_MarkedInTheFingerprint) {
  v1::MeasureResult r;
  r.add_costs_s(1e-3);
  v1::DeviceDescription d;
  d.set_cpu_model("emulated aarch64");
  d.set_emulated(true);
  context_.device = d;
  EXPECT_TRUE(RecordFromResult(task_, 0, r, context_).device.emulated);
  context_.device->set_emulated(false);
  EXPECT_FALSE(RecordFromResult(task_, 0, r, context_).device.emulated);
}

TEST_F(ResultRecordTest, EmulatedResultWithoutKnownDevice_MarkedEmulated) {
  // The tuner's lookup of the worker's device missed: the worker's own word decides.
  v1::MeasureResult r;
  r.add_costs_s(1e-3);
  r.set_emulated(true);
  ASSERT_FALSE(context_.device.has_value());
  EXPECT_TRUE(RecordFromResult(task_, 0, r, context_).device.emulated);
  // A device described as real does not unmark a result the worker marked.
  v1::DeviceDescription d;
  d.set_cpu_model("unknown");
  context_.device = d;
  EXPECT_TRUE(RecordFromResult(task_, 0, r, context_).device.emulated);
  r.set_emulated(false);
  EXPECT_FALSE(RecordFromResult(task_, 0, r, context_).device.emulated);
}

TEST_F(ResultRecordTest, SuccessWithoutPositiveCost_StoredAsUnknownError) {
  v1::MeasureResult r;
  r.add_costs_s(0);
  r.add_costs_s(-1);
  db::Record rec = RecordFromResult(task_, 0, r, context_);
  EXPECT_EQ(rec.error, db::ErrorClass::kUnknown);
  EXPECT_TRUE(rec.costs.empty());
  EXPECT_FALSE(rec.valid());
}

TEST_F(ResultRecordTest, OutOfMemory_KeepsItsClassAndMessage) {
  v1::MeasureResult r;
  r.set_error(v1::OUT_OF_MEMORY);
  r.set_message("kernel ran out of memory (an allocation of 64 bytes failed)");
  db::Record rec = RecordFromResult(task_, 0, r, context_);
  EXPECT_EQ(rec.error, db::ErrorClass::kOutOfMemory);
  EXPECT_EQ(rec.error_message, r.message());
  v1::MeasureResult silent;
  silent.set_error(v1::RUNTIME_ERROR);
  EXPECT_EQ(RecordFromResult(task_, 0, silent, context_).error_message, "failed");
}

}  // namespace
}  // namespace tunefarm::tuner
