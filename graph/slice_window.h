// What an ONNX Slice takes from its data input: per axis the first index, the step and the
// number of elements, from constant starts/ends/axes/steps (opset 10+ inputs, or the attributes
// of opset 1-9), with ONNX's clamping of out-of-range bounds. Shared by constant folding (a
// slice of a constant, and the shape of a slice of an activation that shape inference left
// unknown) and the programs (a slice of an activation read in place).
#ifndef TUNEFARM_GRAPH_SLICE_WINDOW_H_
#define TUNEFARM_GRAPH_SLICE_WINDOW_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace tunefarm::graph {

struct SliceWindow {
  std::vector<int64_t> start, step, extent;
};

// nullopt: a bound that is not (yet) a constant. InvalidArgument (naming the node): an axis
// out of range, a repeated axis, a step of 0, bounds of different lengths.
absl::StatusOr<std::optional<SliceWindow>> SliceWindowOf(const Graph& g, const Node& n,
                                                         const std::vector<int64_t>& in_shape);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_SLICE_WINDOW_H_
