// Record <-> proto conversions round-trip.
#include "tuner/service/record_proto.h"

#include "db/test_records.h"
#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

using db::BestRecord;
using db::ErrorClass;
using db::Record;
namespace testing = db::testing;

TEST(RecordProto, Record_RoundTrips) {
  Record r = testing::MakeRecord(testing::DenseWorkload(8, 16, 32), 5, 0.25, 7);
  r.id = 42;
  r.error = ErrorClass::kDeviceLost;
  r.costs.clear();
  r.error_message = "lease expired";
  r.device.emulated = true;
  v1::Record p;
  ToProto(r, &p);
  EXPECT_EQ(p.error(), v1::ERROR_CLASS_DEVICE_LOST);
  EXPECT_TRUE(p.device().emulated());
  absl::StatusOr<Record> back = FromProto(p);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, r);
}

TEST(RecordProto, UnknownErrorClass_InvalidArgument) {
  v1::Record p;
  p.set_error(static_cast<v1::RecordErrorClass>(77));
  EXPECT_EQ(FromProto(p).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(RecordProto, QueryBestRequest_ZeroKIsOne) {
  v1::QueryBestRequest request;
  request.mutable_workload()->set_template_name("dense");
  request.set_target("llvm");
  EXPECT_EQ(FromProto(request).k, 1);
  BestRecord b;
  b.record.config_index = 3;
  b.exact = false;
  v1::QueryBestResponse response = ToProto(std::vector<BestRecord>{b});
  ASSERT_EQ(response.best_size(), 1);
  EXPECT_EQ(response.best(0).record().config_index(), 3);
  EXPECT_FALSE(response.best(0).exact());
}

}  // namespace
}  // namespace tunefarm::tuner
