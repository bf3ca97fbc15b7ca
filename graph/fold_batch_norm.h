// Batch normalization at inference is a per-channel affine map. After a convolution whose
// output nothing else reads, it is folded into the convolution's weights and bias (W·s per
// output channel, (b − mean)·s + beta with s = gamma / sqrt(var + eps)); elsewhere it becomes a
// Mul and an Add by per-channel constants, which fusion folds into the neighbouring kernel.
#ifndef TUNEFARM_GRAPH_FOLD_BATCH_NORM_H_
#define TUNEFARM_GRAPH_FOLD_BATCH_NORM_H_

#include "absl/status/status.h"
#include "graph/graph.h"

namespace tunefarm::graph {

// InvalidArgument: a BatchNormalization whose scale, bias, mean or variance is not a constant
// of one value per channel (names the node).
absl::Status FoldBatchNorm(Graph& g);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_FOLD_BATCH_NORM_H_
