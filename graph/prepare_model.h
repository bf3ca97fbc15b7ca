// The graph layer's pipeline, one step per line in prepare_model.cc: import (ONNX through
// libonnx) → constant folding → batch-norm folding → fusion → layout planning → one program
// per fused group. What `import-model` prints, `tune-model` tunes and `compile` builds.
#ifndef TUNEFARM_GRAPH_PREPARE_MODEL_H_
#define TUNEFARM_GRAPH_PREPARE_MODEL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/fuse_groups.h"
#include "graph/graph.h"
#include "graph/group_program.h"
#include "graph/import_onnx.h"
#include "graph/plan_layout.h"

namespace tunefarm::graph {

struct PreparedModel {
  Graph graph;
  std::vector<FusedGroup> groups;
  LayoutPlan layouts;
  // Per group (same index): its program; empty text for a view.
  std::vector<GroupProgram> programs;
  // Per group: other algorithms' programs (AlternativePrograms), tuned beside it.
  std::vector<std::vector<GroupProgram>> alternatives;
};

// The steps after import, on a graph. Errors of FoldConstants, FoldBatchNorm, FuseGroups,
// PlanLayouts and MakeGroupProgram.
absl::StatusOr<PreparedModel> PrepareGraph(Graph g);

// ImportOnnxFile, then PrepareGraph.
absl::StatusOr<PreparedModel> PrepareModelFile(const std::string& path,
                                               const ImportOptions& options);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_PREPARE_MODEL_H_
