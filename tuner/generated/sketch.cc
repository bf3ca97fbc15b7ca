#include "tuner/generated/sketch.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::tuner {
namespace {

using te::Tensor;

bool IsReduction(const Tensor& t) {
  return t.compute() != nullptr && !t.compute()->reduce_axis.empty();
}

// True when every load of `producer` in `consumer`'s body is at exactly the consumer's own
// axes, in order: the consumer reads it element for element.
class IdentityReads : public ir::IRVisitor {
 public:
  IdentityReads(const te::OperationNode* producer, const te::ComputeOpNode* consumer)
      : producer_(producer), consumer_(consumer) {}
  bool ok = true;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    if (te::AsOperation(op->buffer) == producer_) {
      if (op->indices.size() != consumer_->axis.size()) {
        ok = false;
      } else {
        for (size_t d = 0; d < op->indices.size(); ++d) {
          const auto* v = op->indices[d].as<ir::VarNode>();
          ok &= v != nullptr && v == consumer_->axis[d]->var.get();
        }
      }
    }
    IRVisitor::Visit_(op);
  }

 private:
  const te::OperationNode* producer_;
  const te::ComputeOpNode* consumer_;
};

// The tensors a body reads, each once, in first-use order.
class ProducerCollector : public ir::IRVisitor {
 public:
  std::vector<Tensor> producers;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    if (auto t = std::dynamic_pointer_cast<const te::OperationNode>(op->buffer)) {
      if (std::find(producers.begin(), producers.end(), Tensor(t)) == producers.end()) {
        producers.push_back(Tensor(t));
      }
    }
    IRVisitor::Visit_(op);
  }
};

// Nodes of a body once the stages it reads are inlined, given each stage's inlined size.
class InlinedSize : public ir::IRVisitor {
 public:
  explicit InlinedSize(const absl::flat_hash_map<const te::OperationNode*, double>* sizes)
      : sizes_(sizes) {}
  double nodes = 0;

  using IRVisitor::Visit;
  void Visit(const ir::Expr& e) override {
    nodes += 1;
    IRVisitor::Visit(e);
  }

 protected:
  void Visit_(const ir::LoadNode* op) override {
    if (auto it = sizes_->find(te::AsOperation(op->buffer)); it != sizes_->end()) {
      nodes += it->second;
    }
    IRVisitor::Visit_(op);
  }

 private:
  const absl::flat_hash_map<const te::OperationNode*, double>* sizes_;
};

// Whether some load does not depend on `axis`, or indexes it together with a reduction
// variable.
class ReuseFinder : public ir::IRVisitor {
 public:
  ReuseFinder(const ir::VarNode* axis, const std::vector<te::IterVar>& reduce)
      : axis_(axis), reduce_(reduce) {}
  bool found = false;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    bool uses = false;
    for (const ir::Expr& i : op->indices) {
      const bool here = ir::UsesVar(i, [&](const ir::VarNode* u) { return u == axis_; });
      uses |= here;
      found |= here && ir::UsesVar(i, [&](const ir::VarNode* u) {
                 for (const te::IterVar& r : reduce_) {
                   if (r->var.get() == u) return true;
                 }
                 return false;
               });
    }
    found |= !uses;
    IRVisitor::Visit_(op);
  }

 private:
  const ir::VarNode* axis_;
  const std::vector<te::IterVar>& reduce_;
};

}  // namespace

bool ReusedAlong(const Tensor& reduction, int d) {
  const te::ComputeOpNode* c = reduction.compute();
  ReuseFinder finder(c->axis[d]->var.get(), c->reduce_axis);
  finder.Visit(c->body);
  return finder.found;
}

std::vector<Tensor> TensorsRead(const ir::Expr& body) {
  ProducerCollector c;
  c.Visit(body);
  return c.producers;
}

std::vector<Tensor> ComputeStages(const Tensor& output) {
  // Depth-first post-order with an explicit stack (programs come from the network).
  std::vector<Tensor> order;
  absl::flat_hash_set<const te::OperationNode*> seen;
  std::vector<std::pair<Tensor, bool>> stack = {{output, false}};
  while (!stack.empty()) {
    auto [t, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      order.push_back(t);
      continue;
    }
    if (t.compute() == nullptr || !seen.insert(t.op()).second) continue;
    stack.push_back({t, true});
    for (const Tensor& in : TensorsRead(t.compute()->body)) {
      if (in.compute() != nullptr && !seen.contains(in.op())) stack.push_back({in, false});
    }
  }
  return order;
}

absl::StatusOr<Sketch> MakeSketch(const std::vector<te::Tensor>& args,
                                  const std::vector<te::Tensor>& at_root) {
  if (args.empty() || args.back().compute() == nullptr) {
    return absl::InvalidArgumentError("generated space: the output must be a computed tensor");
  }
  const Tensor output = args.back();
  const std::vector<Tensor> order = ComputeStages(output);
  absl::flat_hash_map<const te::OperationNode*, std::vector<Tensor>> readers;
  for (const Tensor& t : order) {
    for (const Tensor& in : TensorsRead(t.compute()->body)) readers[in.op()].push_back(t);
  }
  Sketch sketch;
  absl::flat_hash_set<const te::OperationNode*> fused;
  // Inlining substitutes a stage's body at every read, so a chain of stages that each read
  // their producer twice doubles at every step: a stage whose inlined body would exceed
  // kMaxInlinedNodes is computed at the top level instead (programs come from the network).
  absl::flat_hash_map<const te::OperationNode*, double> inlined_size;
  auto is_at_root = [&](const Tensor& t) {
    return std::find(at_root.begin(), at_root.end(), t) != at_root.end();
  };
  for (const Tensor& t : order) {
    if (t.compute() == nullptr) continue;
    if (is_at_root(t)) {
      sketch.root.push_back(t);
      continue;
    }
    if (t == output || IsReduction(t)) continue;
    InlinedSize size(&inlined_size);
    size.Visit(t.compute()->body);
    if (size.nodes > kMaxInlinedNodes) {
      sketch.root.push_back(t);
      continue;
    }
    inlined_size[t.op()] = size.nodes;
    // A stage read by a reduction (padding) is computed once at the top level: inlined, its
    // guards would sit in the innermost loop, vectorized lane by lane.
    // A plain copy (no guard: a padding of 0, drop_guards.h) is inlined all the same.
    bool feeds_reduction = false;
    for (const Tensor& r : readers[t.op()]) feeds_reduction |= IsReduction(r);
    if (t.compute()->body.as<ir::LoadNode>() != nullptr) feeds_reduction = false;
    (feeds_reduction ? sketch.root : sketch.inlined).push_back(t);
  }
  for (const Tensor& t : order) {
    if (!IsReduction(t) || is_at_root(t)) continue;
    const std::vector<Tensor>& rs = readers[t.op()];
    const bool fusable = t != output && rs.size() == 1 && rs[0] == output && !IsReduction(output) &&
                         output.ndim() == t.ndim() && [&] {
                           IdentityReads check(t.op(), output.compute());
                           check.Visit(output.compute()->body);
                           return check.ok;
                         }();
    if (fusable) {
      sketch.tiled.push_back(TiledStage{output, t, false});
      fused.insert(output.op());
    } else {
      sketch.tiled.push_back(TiledStage{t, t, true});
    }
  }
  if (!IsReduction(output) && !fused.contains(output.op()) && !is_at_root(output)) {
    sketch.tiled.push_back(TiledStage{output, Tensor(), false});
  }
  return sketch;
}

}  // namespace tunefarm::tuner
