#include "db/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace tunefarm::db {
namespace {

void AppendQuoted(absl::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out->append(buf);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void AppendCanonical(const google::protobuf::Value& v, std::string* out) {
  switch (v.kind_case()) {
    case google::protobuf::Value::kNumberValue:
      out->append(FormatDouble(v.number_value()));
      break;
    case google::protobuf::Value::kStringValue:
      AppendQuoted(v.string_value(), out);
      break;
    case google::protobuf::Value::kBoolValue:
      out->append(v.bool_value() ? "true" : "false");
      break;
    case google::protobuf::Value::kListValue: {
      out->push_back('[');
      bool first = true;
      for (const auto& e : v.list_value().values()) {
        if (!first) out->push_back(',');
        first = false;
        AppendCanonical(e, out);
      }
      out->push_back(']');
      break;
    }
    case google::protobuf::Value::kStructValue: {
      // Protobuf's map has no stable order; sorting the keys makes the text canonical.
      std::vector<std::pair<std::string, const google::protobuf::Value*>> fields;
      for (const auto& [k, e] : v.struct_value().fields()) fields.emplace_back(k, &e);
      std::sort(fields.begin(), fields.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      out->push_back('{');
      bool first = true;
      for (const auto& [k, e] : fields) {
        if (!first) out->push_back(',');
        first = false;
        AppendQuoted(k, out);
        out->push_back(':');
        AppendCanonical(*e, out);
      }
      out->push_back('}');
      break;
    }
    case google::protobuf::Value::kNullValue:
    case google::protobuf::Value::KIND_NOT_SET:
      out->append("null");
      break;
  }
}

}  // namespace

absl::StatusOr<google::protobuf::Value> ParseJson(absl::string_view text) {
  google::protobuf::Value value;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(text.data(), text.size()), &value);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", status.ToString()));
  }
  return value;
}

std::string CanonicalJson(const google::protobuf::Value& value) {
  std::string out;
  AppendCanonical(value, &out);
  return out;
}

absl::StatusOr<std::string> CanonicalizeJson(absl::string_view text) {
  absl::StatusOr<google::protobuf::Value> value = ParseJson(text);
  if (!value.ok()) return value.status();
  return CanonicalJson(*value);
}

std::string FormatDouble(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[40];
  // Integral values that fit a double exactly print without exponent or fraction.
  if (x == std::trunc(x) && std::fabs(x) < 1e15) {
    std::snprintf(buf, sizeof(buf), "%.0f", x);
    return buf;
  }
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::string JsonNumberArray(const std::vector<double>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.append(FormatDouble(values[i]));
  }
  out.push_back(']');
  return out;
}

absl::StatusOr<std::vector<double>> ParseJsonNumberArray(absl::string_view text) {
  absl::StatusOr<google::protobuf::Value> value = ParseJson(text);
  if (!value.ok()) return value.status();
  if (!value->has_list_value()) {
    return absl::InvalidArgumentError(absl::StrCat("expected a JSON array of numbers: ", text));
  }
  std::vector<double> out;
  for (const auto& e : value->list_value().values()) {
    if (e.kind_case() != google::protobuf::Value::kNumberValue) {
      return absl::InvalidArgumentError(absl::StrCat("expected a number in array: ", text));
    }
    out.push_back(e.number_value());
  }
  return out;
}

google::protobuf::Value JsonString(absl::string_view s) {
  google::protobuf::Value v;
  v.set_string_value(std::string(s));
  return v;
}

google::protobuf::Value JsonNumber(double x) {
  google::protobuf::Value v;
  v.set_number_value(x);
  return v;
}

google::protobuf::Value JsonBool(bool b) {
  google::protobuf::Value v;
  v.set_bool_value(b);
  return v;
}

google::protobuf::Value JsonNull() {
  google::protobuf::Value v;
  v.set_null_value(google::protobuf::NULL_VALUE);
  return v;
}

google::protobuf::Value JsonList(std::vector<google::protobuf::Value> items) {
  google::protobuf::Value v;
  google::protobuf::ListValue* list = v.mutable_list_value();
  for (google::protobuf::Value& item : items) *list->add_values() = std::move(item);
  return v;
}

google::protobuf::Value JsonObject() {
  google::protobuf::Value v;
  v.mutable_struct_value();
  return v;
}

}  // namespace tunefarm::db
