#include "tuner/generated/padding_axes.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::tuner {
namespace {

// The variables of the conditions of the selects that guard a load.
class GuardVars : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::VarNode*> vars;

 protected:
  void Visit_(const ir::SelectNode* op) override {
    if (ir::ContainsLoad(op->true_value) || ir::ContainsLoad(op->false_value)) {
      ir::UsesVar(op->cond, [&](const ir::VarNode* v) {
        vars.insert(v);
        return false;
      });
    }
    IRVisitor::Visit_(op);
  }
};

// The reader's axes that index the given dimensions of its loads of one producer.
class IndexingAxes : public ir::IRVisitor {
 public:
  IndexingAxes(const te::OperationNode* producer, const std::vector<bool>& dims,
               const te::ComputeOpNode* reader)
      : producer_(producer), dims_(dims), reader_(reader) {}
  std::vector<int> axes;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    if (te::AsOperation(op->buffer) == producer_ && op->indices.size() == dims_.size()) {
      for (size_t d = 0; d < dims_.size(); ++d) {
        if (!dims_[d]) continue;
        for (int a = 0; a < static_cast<int>(reader_->axis.size()); ++a) {
          const ir::VarNode* var = reader_->axis[a]->var.get();
          if (ir::UsesVar(op->indices[d], [&](const ir::VarNode* u) { return u == var; }) &&
              std::find(axes.begin(), axes.end(), a) == axes.end()) {
            axes.push_back(a);
          }
        }
      }
    }
    IRVisitor::Visit_(op);
  }

 private:
  const te::OperationNode* producer_;
  const std::vector<bool>& dims_;
  const te::ComputeOpNode* reader_;
};

}  // namespace

std::vector<int> PaddedAxes(const te::Tensor& reader, const te::Tensor& padding) {
  const te::ComputeOpNode* p = padding.compute();
  const te::ComputeOpNode* r = reader.compute();
  if (p == nullptr || r == nullptr) return {};
  GuardVars guards;
  guards.Visit(p->body);
  std::vector<bool> dims(p->axis.size(), false);
  bool any = false;
  for (size_t d = 0; d < p->axis.size(); ++d) {
    dims[d] = guards.vars.contains(p->axis[d]->var.get());
    any |= dims[d];
  }
  if (!any) return {};
  IndexingAxes indexing(padding.op(), dims, r);
  indexing.Visit(r->body);
  std::sort(indexing.axes.begin(), indexing.axes.end());
  return indexing.axes;
}

}  // namespace tunefarm::tuner
