// The one error-class mapping: every class a worker can report lands in its own class of the
// log, and every class of the log crosses the wire and back unchanged, under the same name.
#include "tuner/tuning/error_class.h"

#include <cctype>
#include <set>
#include <string>

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

std::string Upper(absl::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

TEST(ErrorClass, EveryResultClass_HasItsOwnLogClass) {
  const google::protobuf::EnumDescriptor* d = v1::ErrorClass_descriptor();
  std::set<db::ErrorClass> seen;
  for (int i = 0; i < d->value_count(); ++i) {
    const auto e = static_cast<v1::ErrorClass>(d->value(i)->number());
    const db::ErrorClass c = ErrorClassOfResult(e);
    EXPECT_NE(c, db::ErrorClass::kUnknown) << d->value(i)->name() << " has no class of its own";
    EXPECT_TRUE(seen.insert(c).second) << d->value(i)->name() << " shares a class";
  }
  EXPECT_EQ(ErrorClassOfResult(v1::OUT_OF_MEMORY), db::ErrorClass::kOutOfMemory);
  EXPECT_EQ(ErrorClassOfResult(v1::RUNTIME_ERROR), db::ErrorClass::kRuntimeError);
  EXPECT_EQ(ErrorClassOfResult(static_cast<v1::ErrorClass>(1234)), db::ErrorClass::kUnknown);
}

TEST(ErrorClass, EveryLogClass_RoundTripsThroughTheWire_UnderItsName) {
  const google::protobuf::EnumDescriptor* d = v1::RecordErrorClass_descriptor();
  int classes = 0;
  for (int v = 0;; ++v) {
    absl::StatusOr<db::ErrorClass> c = db::ErrorClassFromInt(v);
    if (!c.ok()) break;
    ++classes;
    const v1::RecordErrorClass wire = ToRecordErrorClass(*c);
    EXPECT_EQ(d->FindValueByNumber(wire)->name(), "ERROR_CLASS_" + Upper(db::ErrorClassName(*c)));
    absl::StatusOr<db::ErrorClass> back = FromRecordErrorClass(wire);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, *c);
  }
  EXPECT_EQ(classes, d->value_count());  // no wire value without a log class
  EXPECT_EQ(FromRecordErrorClass(77).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tunefarm::tuner
