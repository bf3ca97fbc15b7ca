#include "tuner/generated/drop_guards.h"

#include "compiler/arith/analyzer.h"
#include "tuner/generated/rebuild_program.h"
#include "tuner/generated/sketch.h"

namespace tunefarm::tuner {

using te::Tensor;

absl::StatusOr<std::vector<Tensor>> DropProvenGuards(const std::vector<Tensor>& args) {
  if (args.empty() || args.back().compute() == nullptr) return args;
  bool any = false;
  auto proven = [](const Tensor& t) -> const ir::SelectNode* {
    const te::ComputeOpNode* c = t.compute();
    if (c == nullptr || !c->reduce_axis.empty()) return nullptr;
    const auto* select = c->body.as<ir::SelectNode>();
    if (select == nullptr) return nullptr;
    arith::Analyzer analyzer;
    for (const te::IterVar& axis : c->axis) {
      analyzer.Bind(axis->var, axis->dom.min, axis->dom.extent);
    }
    return analyzer.CanProve(select->cond) ? select : nullptr;
  };
  for (const Tensor& t : ComputeStages(args.back())) any = any || proven(t) != nullptr;
  if (!any) return args;
  return RebuildProgram(args, {}, [&](const Tensor& stage, const ir::Expr& body) -> ir::Expr {
    const ir::SelectNode* select = proven(stage);
    return select != nullptr ? select->true_value : body;
  });
}

}  // namespace tunefarm::tuner
