// Elaboration: a parsed tensor-expression program plus its bound shapes, checked and built as
// te:: tensors (the same definitions a template builds by hand; there is no second IR).
//
// What is checked, each error with the line and column of the offending text:
//   - names: every tensor read is an input or an earlier definition; no name is defined twice;
//     index variables of one statement are distinct; a reduction variable is used only inside
//     its reduction; every name in a body is an index or shape variable;
//   - shapes: every shape variable is bound; extents are positive and tensors hold fewer than
//     2^31 elements; an index variable's extent is written (`h < H + 2`) or inferred from the
//     tensor dimensions it indexes directly, consistently;
//   - accesses: one index per dimension, integer indices that do not read tensor data, and
//     every index provably within its dimension (index_bounds.h explains how select() guards
//     count);
//   - types (below), and the structure te:: supports: a reduction is a stage's whole
//     definition and is not nested, every defined tensor but the last is read by a later one.
//
// Types: index and shape variables are int32; a tensor element has its declared dtype.
// Literals take the type of what they meet (an integer literal any number type, a float
// literal a float type); alone, they are int32 and float32. Otherwise both operands of an
// operator have the same type: `int32(A[i, k]) * int32(B[k, j])` multiplies int8 inputs in
// int32, and a cast is the way to mix types. `/` and `%` on integers round toward negative
// infinity (floor division). Functions: exp, log, sqrt, tanh, sigmoid, erf, gelu (floats);
// abs; pow (floats); max(a, b), min(a, b); select(cond, a, b); and a cast to any dtype, written
// as its name: float32(x), int32(x), int8(x).
#ifndef TUNEFARM_COMPILER_LANG_ELABORATE_H_
#define TUNEFARM_COMPILER_LANG_ELABORATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "compiler/lang/ast.h"
#include "compiler/te/tensor.h"

namespace tunefarm::lang {

// Values of shape variables, e.g. {"M": 128, "N": 768, "K": 768}.
using ShapeBindings = absl::flat_hash_map<std::string, int64_t>;

// The program as te:: tensors.
struct ElaboratedProgram {
  // The inputs, in declaration order: the kernel's first arguments.
  std::vector<te::Tensor> inputs;
  // The inputs declared with weight(...): constant across calls (see ast.h).
  std::vector<te::Tensor> weights;
  // Every defined tensor in definition order; the last is the output, the kernel's last
  // argument.
  std::vector<te::Tensor> stages;
  // Floating-point operations of one run: per element of each stage, one per float operation
  // or math function in its body and one per reduction step (so a multiply-accumulate is 2).
  // Stages computed from weights and constant tables alone are not counted: the generated CPU
  // space computes them once, ahead of the calls (tuner/generated/hoist_weights.h), like a
  // weight's packing. Where it cannot (a stage of two weights, a weight the kernel also reads,
  // a cuda target) such a stage runs in every call but stays out of this count.
  double flop = 0;

  const te::Tensor& output() const { return stages.back(); }
  // inputs then the output: the kernel's arguments.
  std::vector<te::Tensor> args() const;
};

// The shape variables of `program` (the names used in input shapes and written extents), in
// order of first appearance. This order is the order of the workload's arguments.
std::vector<std::string> ShapeVariables(const Program& program);

// Checks `program` under `shapes` and builds its tensors (see the file comment).
// InvalidArgument, with "line L, column C:" where the program is at fault: any failed check;
// a binding for a name that is not a shape variable of the program, or a value < 1.
absl::StatusOr<ElaboratedProgram> Elaborate(const Program& program, const ShapeBindings& shapes);

}  // namespace tunefarm::lang

#endif  // TUNEFARM_COMPILER_LANG_ELABORATE_H_
