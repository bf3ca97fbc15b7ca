// Scalar and vector element types of the IR, in DLPack's (code, bits, lanes) terms.
#ifndef TUNEFARM_COMPILER_IR_TYPE_H_
#define TUNEFARM_COMPILER_IR_TYPE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tunefarm::ir {

// The type of an IR value: `lanes` > 1 is a vector of `lanes` elements.
struct DataType {
  // The element kind: signed, unsigned, IEEE float, boolean (1 bit), or an opaque pointer.
  enum class Code : uint8_t { kInt, kUInt, kFloat, kBool, kHandle };

  Code code = Code::kInt;
  // Width of one element in bits (1 for bool, 64 for a handle).
  int bits = 32;
  // Elements per value: 1 for a scalar, N for an N-wide vector.
  int lanes = 1;

  // Constructors of each kind; `lanes` > 1 makes a vector type.
  static constexpr DataType Int(int bits, int lanes = 1) { return {Code::kInt, bits, lanes}; }
  static constexpr DataType UInt(int bits, int lanes = 1) { return {Code::kUInt, bits, lanes}; }
  static constexpr DataType Float(int bits, int lanes = 1) { return {Code::kFloat, bits, lanes}; }
  // One bit per element (bytes() counts it as one byte).
  static constexpr DataType Bool(int lanes = 1) { return {Code::kBool, 1, lanes}; }
  // An opaque pointer (a buffer's base address).
  static constexpr DataType Handle() { return {Code::kHandle, 64, 1}; }

  // Tests of `code` (is_int is signed integers only; see is_integral).
  bool is_int() const { return code == Code::kInt; }
  bool is_uint() const { return code == Code::kUInt; }
  bool is_float() const { return code == Code::kFloat; }
  bool is_bool() const { return code == Code::kBool; }
  bool is_handle() const { return code == Code::kHandle; }
  // Integer-like: int, uint or bool.
  bool is_integral() const { return is_int() || is_uint() || is_bool(); }
  // One lane, or more than one.
  bool is_scalar() const { return lanes == 1; }
  bool is_vector() const { return lanes > 1; }
  // Bytes of one element, bits rounded up (bool: 1); lanes are not counted.
  int bytes() const { return (bits + 7) / 8; }

  // The scalar type of one lane.
  DataType element_of() const { return {code, bits, 1}; }
  // The same element type with `n` lanes.
  DataType with_lanes(int n) const { return {code, bits, n}; }

  // Equal when code, bits and lanes all match.
  bool operator==(const DataType& o) const {
    return code == o.code && bits == o.bits && lanes == o.lanes;
  }
  bool operator!=(const DataType& o) const { return !(*this == o); }

  // "float32", "int8", "float32x16", "bool", "handle".
  std::string ToString() const;
};

// Parses "float16/32/64", "int8/16/32/64", "uint8", "uint32" or "bool", optionally followed by
// "xN" for an N-lane vector ("float32x8"). InvalidArgument: an unknown name, N not a
// positive integer, or anything after it ("float32x4x2").
absl::StatusOr<DataType> ParseDataType(absl::string_view name);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_TYPE_H_
