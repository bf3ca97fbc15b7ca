// Canonical JSON, stable hashes, record validation and the shape distance.
#include "db/json.h"

#include "absl/status/status.h"
#include "db/nearest_shape.h"
#include "db/record.h"
#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

TEST(CanonicalizeJson, ObjectKeysAndSpaces_SortedAndCompact) {
  absl::StatusOr<std::string> s = CanonicalizeJson(R"({ "b": [1, 2.5], "a": "x", "c": null })");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, R"({"a":"x","b":[1,2.5],"c":null})");
}

TEST(CanonicalizeJson, Malformed_InvalidArgument) {
  EXPECT_EQ(CanonicalizeJson("[1, 2").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(FormatDouble, Values_ShortestRoundTrip) {
  EXPECT_EQ(FormatDouble(1024), "1024");
  EXPECT_EQ(FormatDouble(0.0123), "0.0123");
  EXPECT_EQ(FormatDouble(-1), "-1");
  for (double x : {0.1, 1.0 / 3.0, 1700000000.123456, 1e-12, 6.02e23}) {
    EXPECT_EQ(std::strtod(FormatDouble(x).c_str(), nullptr), x) << FormatDouble(x);
  }
}

TEST(ParseJsonNumberArray, NonNumber_InvalidArgument) {
  EXPECT_EQ(ParseJsonNumberArray("[1, \"x\"]").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseJsonNumberArray("{}").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(*ParseJsonNumberArray("[0.5,2]"), (std::vector<double>{0.5, 2}));
}

TEST(Fnv1a64, KnownVectors_MatchReference) {
  // Reference values of the FNV-1a 64 specification.
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(WorkloadMake, SpacedArgs_CanonicalAndSameHash) {
  absl::StatusOr<Workload> a = Workload::Make("dense", "[1024, 1024, 1024, \"float32\"]", 2e9);
  absl::StatusOr<Workload> b = Workload::Make("dense", "[1024,1024,1024,\"float32\"]", 2e9);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->args, "[1024,1024,1024,\"float32\"]");
  EXPECT_EQ(a->Hash(), b->Hash());
  EXPECT_EQ(a->Hash(), Fnv1a64("dense|[1024,1024,1024,\"float32\"]"));
}

TEST(WorkloadMake, NotAnArray_InvalidArgument) {
  EXPECT_EQ(Workload::Make("dense", "{\"m\":1}", 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Workload::Make("", "[1]", 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ValidateRecord, OkWithoutCosts_InvalidArgument) {
  Record r;
  r.workload = *Workload::Make("dense", "[1,2,3]", 12);
  r.target = "llvm";
  r.device_key = "cpu";
  EXPECT_EQ(ValidateRecord(r).code(), absl::StatusCode::kInvalidArgument);
  r.costs = {0.1};
  EXPECT_TRUE(ValidateRecord(r).ok());
  r.config_json = "[1]";
  EXPECT_EQ(ValidateRecord(r).code(), absl::StatusCode::kInvalidArgument);
}

TEST(ErrorClass, Names_RoundTrip) {
  for (int i = 0; i <= static_cast<int>(ErrorClass::kUnknown); ++i) {
    ErrorClass e = *ErrorClassFromInt(i);
    EXPECT_EQ(*ErrorClassFromName(ErrorClassName(e)), e);
  }
  EXPECT_EQ(ErrorClassFromInt(42).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ShapeDistance, LogRatio_SymmetricAndZeroOnEqual) {
  EXPECT_DOUBLE_EQ(*ShapeDistance("[1024,\"float32\"]", "[1024,\"float32\"]"), 0);
  EXPECT_NEAR(*ShapeDistance("[512,1024]", "[1024,1024]"), std::log(2.0), 1e-12);
  EXPECT_NEAR(*ShapeDistance("[512,2048]", "[1024,1024]"), 2 * std::log(2.0), 1e-12);
}

TEST(ShapeDistance, DifferentDtypeOrRank_NotComparable) {
  EXPECT_FALSE(ShapeDistance("[1024,\"float32\"]", "[1024,\"float16\"]").has_value());
  EXPECT_FALSE(ShapeDistance("[1024,1024]", "[1024]").has_value());
  EXPECT_FALSE(ShapeDistance("[1024", "[1024]").has_value());
}

}  // namespace
}  // namespace tunefarm::db
