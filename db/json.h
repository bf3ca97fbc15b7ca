// JSON helpers for the tuning log: parsing goes through protobuf's JSON parser into
// google.protobuf.Value; printing is canonical (sorted object keys, shortest round-trip numbers,
// no whitespace) so equal values always give equal text, which the workload hash relies on.
#ifndef TUNEFARM_DB_JSON_H_
#define TUNEFARM_DB_JSON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"

namespace tunefarm::db {

// Parses one JSON value (object, array, string, number, bool or null).
// InvalidArgument: `text` is not valid JSON.
absl::StatusOr<google::protobuf::Value> ParseJson(absl::string_view text);

// Prints `value` canonically: object keys sorted, numbers in the shortest form that parses back
// to the same double (integral values without a fraction), no insignificant whitespace.
std::string CanonicalJson(const google::protobuf::Value& value);

// Parses and re-prints `text` canonically.
// InvalidArgument: `text` is not valid JSON.
absl::StatusOr<std::string> CanonicalizeJson(absl::string_view text);

// Shortest decimal text that parses back to exactly `x` ("1024", "0.0123", "1e+09").
// Non-finite values print as "null" (JSON has no infinity).
std::string FormatDouble(double x);

// JSON array of numbers, e.g. "[0.0123,0.0125]".
std::string JsonNumberArray(const std::vector<double>& values);

// Parses a JSON array of numbers.
// InvalidArgument: not an array, or an element is not a number.
absl::StatusOr<std::vector<double>> ParseJsonNumberArray(absl::string_view text);

// Builders of google.protobuf.Value, for code that assembles JSON (AutoTVM lines).
google::protobuf::Value JsonString(absl::string_view s);
google::protobuf::Value JsonNumber(double x);
google::protobuf::Value JsonBool(bool b);
google::protobuf::Value JsonNull();
google::protobuf::Value JsonList(std::vector<google::protobuf::Value> items);
// An object with no fields.
google::protobuf::Value JsonObject();

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_JSON_H_
