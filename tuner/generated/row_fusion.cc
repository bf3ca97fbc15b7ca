#include "tuner/generated/row_fusion.h"

#include <algorithm>

#include "compiler/ir/ir_visitor.h"
#include "tuner/generated/sketch.h"

namespace tunefarm::tuner {
namespace {

using te::Tensor;

// The smallest number of leading indices, over the loads of the stages in `group` within a
// reader's body, that are the reader's own axes (same variable, same extent), in order.
class LeadingIdentity : public ir::IRVisitor {
 public:
  LeadingIdentity(const te::ComputeOpNode* reader, const std::vector<Tensor>* group, int limit)
      : depth(limit), reader_(reader), group_(group) {}
  int depth;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    const te::OperationNode* producer = te::AsOperation(op->buffer);
    const auto it = std::find_if(group_->begin(), group_->end(),
                                 [&](const Tensor& t) { return t.op() == producer; });
    if (it != group_->end()) {
      const te::ComputeOpNode* c = it->compute();
      int same = 0;
      while (same < depth && same < static_cast<int>(op->indices.size()) &&
             same < static_cast<int>(c->axis.size()) &&
             same < static_cast<int>(reader_->axis.size())) {
        const auto* v = op->indices[same].as<ir::VarNode>();
        const te::IterVar& mine = reader_->axis[same];
        const int64_t* a = ir::AsConstInt(mine->dom.extent);
        const int64_t* b = ir::AsConstInt(c->axis[same]->dom.extent);
        if (v != mine->var.get() || a == nullptr || b == nullptr || *a != *b) break;
        ++same;
      }
      depth = same;
    }
    IRVisitor::Visit_(op);
  }

 private:
  const te::ComputeOpNode* reader_;
  const std::vector<Tensor>* group_;
};

}  // namespace

int RowFusionDepth(const std::vector<Tensor>& args, const std::vector<Tensor>& outside) {
  if (args.empty() || args.back().compute() == nullptr) return 0;
  const Tensor output = args.back();
  if (!output.compute()->reduce_axis.empty()) return 0;
  std::vector<Tensor> stages;
  for (const Tensor& t : ComputeStages(output)) {
    if (std::find(outside.begin(), outside.end(), t) == outside.end()) stages.push_back(t);
  }
  if (stages.size() < 2) return 0;
  int depth = static_cast<int>(output.compute()->axis.size()) - 1;
  for (const Tensor& t : stages) {
    depth = std::min(depth, static_cast<int>(t.compute()->axis.size()));
  }
  // A stage computed on its own beforehand must not read the group (it would run first).
  for (const Tensor& t : outside) {
    if (t.compute() == nullptr) continue;
    for (const Tensor& in : TensorsRead(t.compute()->body)) {
      if (std::find(stages.begin(), stages.end(), in) != stages.end()) return 0;
    }
  }
  for (const Tensor& t : stages) {
    if (depth <= 0) break;
    LeadingIdentity check(t.compute(), &stages, depth);
    check.Visit(t.compute()->body);
    depth = check.depth;
  }
  return std::max(depth, 0);
}

}  // namespace tunefarm::tuner
