// Operator fusion, in the manner of TVM's graph-level fusion: each fused group is one kernel.
// An anchor (a convolution, a dense layer, a batch matmul, a softmax, a layer norm, a pooling,
// a data movement, or an elementwise operator that no anchor absorbs) takes with it the chain
// of elementwise operators that follows it while each link's value is read by the next link
// alone: bias adds, batch-norm affines, activations (Relu, Clip, Sigmoid, ...) and residual
// adds of another activation. A data movement (Transpose, Slice) first takes the transposes,
// slices and reshapes that follow it: one kernel reads the source once (TVM's injective
// fusion). Reshapes of activations are views (no kernel).
#ifndef TUNEFARM_GRAPH_FUSE_GROUPS_H_
#define TUNEFARM_GRAPH_FUSE_GROUPS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace tunefarm::graph {

enum class GroupKind {
  kConv,           // Conv, groups = 1
  kDepthwise,      // Conv, groups = channels = output channels
  kDense,          // Gemm, or MatMul by a constant
  kMaxPool,        // MaxPool
  kAvgPool,        // AveragePool
  kGlobalAvgPool,  // GlobalAveragePool
  kBatchMatmul,    // MatMul of two activations
  kSoftmax,        // Softmax over the last axis
  kLayerNorm,      // LayerNormalization over the last axis (or its decomposition, folded)
  kInjective,      // Transpose and Slice of an activation, with the views between them
  kElementwise,    // an elementwise chain with no anchor
  kView,           // Flatten, Reshape, Squeeze, Unsqueeze, a Transpose that moves only
                   // axes of length 1: the same bytes, no computation
  kLayout,         // a layout transform the layout planner adds (no node)
};

const char* GroupKindName(GroupKind k);

// Flatten, Reshape, Squeeze, Unsqueeze: the same elements in the same order.
bool IsReshapeOp(const std::string& op);

struct FusedGroup {
  GroupKind kind = GroupKind::kElementwise;
  // "conv_add_relu" etc.: the operators, for people.
  std::string label;
  // Indices into Graph::nodes: the anchor first, then the fused chain in order. Empty for a
  // layout transform.
  std::vector<int> nodes;
  // The tensor the group writes, and for a layout transform the one it reads.
  std::string output;
  std::string layout_source;
};

// The operators fusion and the programs support (for the error message of the others).
const std::vector<std::string>& SupportedOperators();

// Partitions the graph into groups in an order that runs them (each group after the groups
// that write what it reads). Unimplemented: operators outside SupportedOperators() or
// attributes the programs do not cover (a dilated or grouped convolution, ...), each listed with
// its nodes.
absl::StatusOr<std::vector<FusedGroup>> FuseGroups(const Graph& g);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_FUSE_GROUPS_H_
