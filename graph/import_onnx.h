// ONNX import: a model file's bytes → the graph IR, through Debian's libonnx (1.12): the
// protobuf parser, onnx::checker and onnx's shape inference (with data propagation, so shape
// computations such as Shape → Gather → Concat get values). Every tensor must end with a
// static shape: a dynamic dimension needs a binding.
#ifndef TUNEFARM_GRAPH_IMPORT_ONNX_H_
#define TUNEFARM_GRAPH_IMPORT_ONNX_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace tunefarm::graph {

// Largest model accepted (a protobuf message cannot exceed 2 GiB).
inline constexpr int64_t kMaxModelBytes = int64_t{2} << 30;

struct ImportOptions {
  // Shapes of model inputs by name, overriding what the model declares (e.g. {"input":
  // {1, 3, 224, 224}}): how a dynamic batch or sequence dimension is bound.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Values of symbolic dimensions by their name in the model (e.g. {"batch_size": 1}).
  std::map<std::string, int64_t> dim_values;
};

// InvalidArgument: not an ONNX model (the parser, or onnx::checker, rejects it; the message
// says why), a corrupt initializer (its data does not match its shape), a dynamic input
// dimension without a binding (names the inputs and dimensions, and the flag that binds them),
// a binding of an input the model does not have or of the wrong rank, an output whose shape
// inference leaves dynamic (names the nodes). Unimplemented: a non-default operator domain,
// an initializer of an element type the graph layer does not compute in, external data
// (names the tensors). ResourceExhausted: more than kMaxModelBytes.
absl::StatusOr<Graph> ImportOnnx(const std::string& model_bytes, const ImportOptions& options = {});

// Reads the file and imports it. NotFound: no such file; the errors of ImportOnnx.
absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options = {});

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_IMPORT_ONNX_H_
