// A fused group as a program of tunefarm's tensor-expression language (the text a user would
// write for the layer, see tuner/README.md), with its shapes bound and its weights already in
// the layouts the program declares: convolution filters blocked [F/FB][C/CB][R][S][CB][FB],
// batch norm folded in, dense weights as [N][K]. Each group is then a tuning task of the
// generated space, and the compiled model calls the tuned kernel of each.
#ifndef TUNEFARM_GRAPH_GROUP_PROGRAM_H_
#define TUNEFARM_GRAPH_GROUP_PROGRAM_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/fuse_groups.h"
#include "graph/graph.h"
#include "graph/plan_layout.h"

namespace tunefarm::graph {

// One declared input of the program, in declaration order (the kernel's argument order).
struct ProgramArg {
  // The program's name for it (X, Wt, B, R0, ...).
  std::string name;
  bool weight = false;
  // An activation: the graph tensor it reads (after layout planning).
  std::string tensor;
  // Its shape in memory, as declared.
  std::vector<int64_t> shape;
  // A weight's values, row-major in `shape`.
  std::vector<float> data;
};

struct GroupProgram {
  // For people and the tuning log: the group's label, e.g. "conv_add_relu".
  std::string name;
  std::string text;
  absl::flat_hash_map<std::string, int64_t> shapes;
  std::vector<ProgramArg> args;
  // The graph tensor the program's output is, and its shape in memory.
  std::string output;
  std::vector<int64_t> output_shape;
};

// The program of `group` (not of a view: views have none). Unimplemented: an elementwise
// operand the programs do not broadcast yet (names the node). InvalidArgument: attributes
// that contradict the shapes (names the node).
absl::StatusOr<GroupProgram> MakeGroupProgram(const Graph& g, const FusedGroup& group,
                                              const LayoutPlan& plan, size_t group_index);

// Other algorithms for the same group, each a program of its own computing the same output
// (TVM's strategies: the tuner measures each, and the compiled model uses the fastest):
// Winograd F(4×4, 3×3) for a 3×3, stride-1, padding-1 convolution over whole blocks of 16
// channels, named "<label>_winograd"; for a dense layer, or a 1×1 stride-1 unpadded convolution
// over input blocks of an even size, whose outputs and inputs DensePairsFit (dense_pairs.h), its
// weight in pairs of inputs (examples/programs/dense_pairs.te), named "<label>_pairs". Empty for
// other groups. Errors as MakeGroupProgram's.
absl::StatusOr<std::vector<GroupProgram>> AlternativePrograms(const Graph& g,
                                                              const FusedGroup& group,
                                                              const LayoutPlan& plan,
                                                              size_t group_index);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_GROUP_PROGRAM_H_
