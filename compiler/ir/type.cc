#include "compiler/ir/type.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tunefarm::ir {

std::string DataType::ToString() const {
  std::string base;
  switch (code) {
    case Code::kInt:
      base = absl::StrCat("int", bits);
      break;
    case Code::kUInt:
      base = absl::StrCat("uint", bits);
      break;
    case Code::kFloat:
      base = absl::StrCat("float", bits);
      break;
    case Code::kBool:
      base = "bool";
      break;
    case Code::kHandle:
      base = "handle";
      break;
  }
  return lanes == 1 ? base : absl::StrCat(base, "x", lanes);
}

absl::StatusOr<DataType> ParseDataType(absl::string_view name) {
  // "base" or "basexN"; anything after a second 'x' is an error, not ignored.
  std::vector<absl::string_view> parts = absl::StrSplit(name, 'x');
  int lanes = 1;
  if (parts.size() > 2 ||
      (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &lanes) || lanes < 1))) {
    return absl::InvalidArgumentError(absl::StrCat("bad vector width in dtype '", name, "'"));
  }
  absl::string_view base = parts[0];
  struct Known {
    absl::string_view name;
    DataType type;
  };
  static constexpr Known kKnown[] = {
      {"float32", DataType::Float(32)}, {"float16", DataType::Float(16)},
      {"float64", DataType::Float(64)}, {"int8", DataType::Int(8)},
      {"int16", DataType::Int(16)},     {"int32", DataType::Int(32)},
      {"int64", DataType::Int(64)},     {"uint8", DataType::UInt(8)},
      {"uint32", DataType::UInt(32)},   {"bool", DataType::Bool()},
  };
  for (const Known& k : kKnown) {
    if (k.name == base) return k.type.with_lanes(lanes);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown dtype '", name, "' (expected float32, float16, float64, int8, int16, int32, ",
      "int64, uint8, uint32 or bool)"));
}

}  // namespace tunefarm::ir
