// The graph IR of a whole model, as the graph layer sees it after import: tensors with static
// shapes (constants hold their values) and nodes in topological order, each an ONNX operator
// with its attributes. Independent of the ONNX protobufs, so the passes (constant folding,
// batch-norm folding, fusion, layout and memory planning) never touch them.
#ifndef TUNEFARM_GRAPH_GRAPH_H_
#define TUNEFARM_GRAPH_GRAPH_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tunefarm::graph {

// Element types the graph layer computes in: float32 for activations and weights, int64 for
// the shape computations that constant folding evaluates away.
enum class DType { kFloat32, kInt64 };

const char* DTypeName(DType t);

struct Tensor {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  // False for the output of a Slice whose bounds shape inference could not evaluate (they are
  // computed from shapes by nodes onnx does not propagate, e.g. Div); constant folding
  // computes the shape once the bounds are constants, and refuses the model otherwise.
  bool shape_known = true;
  // Set for a constant (an initializer, a Constant node's value, or a folded result), row-major;
  // the one matching `dtype` holds the values.
  bool constant = false;
  std::vector<float> f32;
  std::vector<int64_t> i64;

  int64_t NumElements() const;
};

// An ONNX attribute, the kinds the supported operators use.
struct Attribute {
  enum class Kind { kInt, kFloat, kInts, kFloats, kString, kTensor };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  float f = 0;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::string s;
  // kTensor (a Constant node's value).
  Tensor t;
};

struct Node {
  // The ONNX operator, e.g. "Conv".
  std::string op;
  // The node's name in the model (made up as "<op>_<index>" where the model gives none).
  std::string name;
  // Tensor names; "" for an omitted optional input.
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attrs;

  // The attribute's value, or `fallback` when the node does not have it (or has another kind).
  int64_t Int(const std::string& key, int64_t fallback) const;
  float Float(const std::string& key, float fallback) const;
  std::vector<int64_t> Ints(const std::string& key, std::vector<int64_t> fallback = {}) const;
  std::string String(const std::string& key, const std::string& fallback = "") const;
};

struct Graph {
  std::string name;
  std::map<std::string, Tensor> tensors;
  // Topologically sorted.
  std::vector<Node> nodes;
  // Names of the model's inputs (not constants) and outputs, in the model's order.
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;

  // The tensor; nullptr when it does not exist.
  const Tensor* Find(const std::string& name) const;
  Tensor* Find(const std::string& name);
  // A tensor that exists and holds constant values.
  bool IsConstant(const std::string& name) const;
  // `tensor` is one of the model's outputs.
  bool IsOutput(const std::string& tensor) const;
  // Indices of the nodes that read `tensor`.
  std::vector<int> Consumers(const std::string& tensor) const;
  // Renames every read of `from` (node inputs and graph outputs) to `to`.
  void ReplaceUses(const std::string& from, const std::string& to);
  // Drops nodes whose outputs nobody reads (and are not graph outputs), and tensors no node or
  // graph input/output names.
  void RemoveDead();
};

// A Transpose's permutation of its input's `rank` axes: its perm attribute, or ONNX's default
// (the axes reversed). Not validated against the rank.
std::vector<int64_t> TransposePerm(const Node& n, size_t rank);

// "[1, 64, 56, 56]".
std::string ShapeString(const std::vector<int64_t>& shape);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_GRAPH_H_
