#include "graph/prepare_model.h"

#include "graph/fold_batch_norm.h"
#include "graph/fold_constants.h"
#include "graph/fold_layer_norm.h"

namespace tunefarm::graph {

absl::StatusOr<PreparedModel> PrepareGraph(Graph g) {
  PreparedModel m;
  if (absl::Status s = FoldConstants(g); !s.ok()) return s;
  if (absl::Status s = FoldBatchNorm(g); !s.ok()) return s;
  if (absl::Status s = FoldLayerNorm(g); !s.ok()) return s;
  absl::StatusOr<std::vector<FusedGroup>> groups = FuseGroups(g);
  if (!groups.ok()) return groups.status();
  absl::StatusOr<LayoutPlan> layouts = PlanLayouts(g, *groups);
  if (!layouts.ok()) return layouts.status();
  m.graph = std::move(g);
  m.groups = *std::move(groups);
  m.layouts = *std::move(layouts);
  for (size_t i = 0; i < m.groups.size(); ++i) {
    if (m.groups[i].kind == GroupKind::kView) {
      m.programs.emplace_back();
      m.alternatives.emplace_back();
      continue;
    }
    absl::StatusOr<GroupProgram> p = MakeGroupProgram(m.graph, m.groups[i], m.layouts, i);
    if (!p.ok()) return p.status();
    m.programs.push_back(*std::move(p));
    absl::StatusOr<std::vector<GroupProgram>> alt =
        AlternativePrograms(m.graph, m.groups[i], m.layouts, i);
    if (!alt.ok()) return alt.status();
    m.alternatives.push_back(*std::move(alt));
  }
  return m;
}

absl::StatusOr<PreparedModel> PrepareModelFile(const std::string& path,
                                               const ImportOptions& options) {
  absl::StatusOr<Graph> g = ImportOnnxFile(path, options);
  if (!g.ok()) return g.status();
  return PrepareGraph(*std::move(g));
}

}  // namespace tunefarm::graph
