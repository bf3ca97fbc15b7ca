// Layer normalization, as exporters decompose it (torch.onnx before opset 17):
//   m = ReduceMean(x, last axis); d = x - m; v = ReduceMean(d ^ 2); y = d / Sqrt(v + eps)
// optionally followed by y * gamma + beta (constants over the last axis), becomes one
// LayerNormalization node (opset 17's operator, axis -1), which fusion makes one kernel. The
// decomposition's intermediates must be read by the pattern alone.
#ifndef TUNEFARM_GRAPH_FOLD_LAYER_NORM_H_
#define TUNEFARM_GRAPH_FOLD_LAYER_NORM_H_

#include "absl/status/status.h"
#include "graph/graph.h"

namespace tunefarm::graph {

// Rewrites every match in place; leaves anything else as it is (fusion then names what it
// cannot compile).
absl::Status FoldLayerNorm(Graph& g);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_FOLD_LAYER_NORM_H_
