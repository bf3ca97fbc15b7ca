// Constant folding: evaluates the nodes whose inputs are all constants (the shape computations
// an exporter writes: Shape → Gather → Unsqueeze → Concat → Reshape, weights transposed or
// scaled), replaces Shape by the static shape it reads, and drops Identity and (inference)
// Dropout. What is left computes on activations.
#ifndef TUNEFARM_GRAPH_FOLD_CONSTANTS_H_
#define TUNEFARM_GRAPH_FOLD_CONSTANTS_H_

#include "absl/status/status.h"
#include "graph/graph.h"

namespace tunefarm::graph {

// Folds in place. InvalidArgument: a constant computation that is malformed (an index out of
// range, a reshape that changes the element count), naming the node.
absl::Status FoldConstants(Graph& g);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_FOLD_CONSTANTS_H_
