#include "tuner/generated/table_axes.h"

#include <vector>

#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::tuner {
namespace {

// The variables that are a whole index of a load of a table.
class TableIndexVars : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::VarNode*> vars;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    if (te::AsTable(op->buffer) != nullptr) {
      for (const ir::Expr& i : op->indices) {
        if (const auto* v = i.as<ir::VarNode>()) vars.insert(v);
      }
    }
    IRVisitor::Visit_(op);
  }
};

}  // namespace

absl::flat_hash_set<const ir::VarNode*> TableAxes(const te::Tensor& stage) {
  absl::flat_hash_set<const ir::VarNode*> out;
  const te::ComputeOpNode* c = stage.compute();
  if (c == nullptr) return out;
  TableIndexVars finder;
  finder.Visit(c->body);
  auto add = [&](const std::vector<te::IterVar>& axes) {
    for (const te::IterVar& a : axes) {
      const int64_t* extent = ir::AsConstInt(a->dom.extent);
      if (extent != nullptr && *extent <= kMaxTableAxis && finder.vars.contains(a->var.get())) {
        out.insert(a->var.get());
      }
    }
  };
  add(c->axis);
  add(c->reduce_axis);
  return out;
}

}  // namespace tunefarm::tuner
