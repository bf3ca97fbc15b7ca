#include "compiler/lower/schedule_ops.h"

#include <algorithm>
#include <set>

#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using ir::Stmt;

// Rewrites loads of a stage into loads of its realized (region-sized) buffer.
class RealizeLoads : public ir::IRMutator {
 public:
  RealizeLoads(const te::OperationNode* op, ir::Buffer buffer, const std::vector<Expr>& mins)
      : op_(op), buffer_(std::move(buffer)), mins_(mins) {}

 protected:
  Expr Mutate_(const ir::LoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::LoadNode>();
    if (load->buffer.get() != op_) return e;
    std::vector<Expr> idx;
    for (size_t d = 0; d < load->indices.size(); ++d) idx.push_back(load->indices[d] - mins_[d]);
    return ir::LoadNode::Make(buffer_, std::move(idx));
  }

 private:
  const te::OperationNode* op_;
  ir::Buffer buffer_;
  const std::vector<Expr>& mins_;
};

ir::Buffer AsBuffer(const std::shared_ptr<const te::OperationNode>& op) {
  return ir::Buffer(std::const_pointer_cast<te::OperationNode>(op),
                    const_cast<te::OperationNode*>(op.get()));
}

// Applies storage_align to a buffer's strides.
void AlignStrides(const schedule::Stage& stage, const std::vector<int64_t>& extents,
                  ir::BufferNode* buffer) {
  if (stage.storage_aligns().empty()) return;
  std::vector<int64_t> strides(extents.size(), 1);
  for (int d = static_cast<int>(extents.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * extents[d + 1];
    for (const schedule::StorageAlign& a : stage.storage_aligns()) {
      if (a.axis == d) strides[d] += ((a.offset - strides[d] % a.factor) + a.factor) % a.factor;
    }
  }
  for (int64_t s : strides) buffer->strides.push_back(Expr(static_cast<int>(s)));
}

class NestBuilder {
 public:
  NestBuilder(const schedule::Schedule& sch, const Bodies& bodies, const Domains& domains,
              const ir::VarMap& bindings)
      : sch_(sch), bodies_(bodies), domains_(domains), bindings_(bindings) {}

  // The whole program: root stages in order, intermediates allocated around them.
  absl::StatusOr<Stmt> Build(const std::vector<te::Tensor>& args) {
    std::set<const te::OperationNode*> arg_ops;
    for (const te::Tensor& t : args) arg_ops.insert(t.op());
    std::vector<Stmt> nests;
    std::vector<ir::Buffer> temporaries;
    for (const auto& stage : sch_.stages()) {
      if (stage->is_placeholder() || stage->attach().kind != schedule::Attach::Kind::kRoot) {
        continue;
      }
      auto nest = BuildStage(*stage, AsBuffer(stage->op_ptr()));
      if (!nest.ok()) return nest.status();
      nests.push_back(*nest);
      if (!arg_ops.count(stage->op())) temporaries.push_back(AsBuffer(stage->op_ptr()));
    }
    Stmt body = ir::SeqNode::Make(std::move(nests));
    for (auto it = temporaries.rbegin(); it != temporaries.rend(); ++it) {
      body = ir::AllocateNode::Make(*it, body);
    }
    return body;
  }

 private:
  // The loops of one stage writing into `out` (its op buffer, or a region-sized buffer).
  absl::StatusOr<Stmt> BuildStage(const schedule::Stage& stage, const ir::Buffer& out) {
    const RootDomain& dom = domains_.at(stage.op());
    auto loops_or = MakeStageLoops(stage, dom, bindings_);
    if (!loops_or.ok()) return loops_or.status();
    const StageLoops& loops = *loops_or;
    ir::VarMap values = RootValues(stage, dom, loops, bindings_);

    arith::Analyzer an;
    for (const te::IterVar& leaf : stage.leaf_ivars()) {
      an.Bind(leaf->var.get(), 0, loops.extent.at(leaf.get()));
    }
    std::vector<Expr> idx;
    std::vector<Expr> guards = loops.guards;
    for (size_t d = 0; d < stage.root_axes().size(); ++d) {
      const ir::Var& v = stage.root_axes()[d]->var;
      Expr offset = loops.root_offset.at(v.get());
      idx.push_back(offset);
      if (!ir::AsConstInt(dom.min[d])) {
        // A region that may hang over the tensor's end (or start) computes only inside it.
        Expr full = ir::Substitute(stage.op()->shape[d], bindings_);
        Expr pos = dom.min[d] + offset;
        if (!an.CanProve(pos < full)) guards.push_back(pos < full);
        if (!an.CanProve(pos >= 0)) guards.push_back(pos >= 0);
      }
    }
    Expr body = ir::Substitute(bodies_.at(stage.op()), values);

    // Which leaves are reduce loops; the init nest goes just outside the first one.
    std::set<const ir::VarNode*> reduce_leaf_vars;
    int first_reduce = -1;
    for (size_t i = 0; i < stage.leaf_ivars().size(); ++i) {
      if (stage.leaf_ivars()[i]->kind == te::IterVarNode::Kind::kReduce) {
        reduce_leaf_vars.insert(stage.leaf_ivars()[i]->var.get());
        if (first_reduce < 0) first_reduce = static_cast<int>(i);
      }
    }
    Stmt update, init;
    if (const auto* red = body.as<ir::ReduceNode>()) {
      Expr acc = ir::LoadNode::Make(out, idx);
      update = ir::StoreNode::Make(out, red->Combine(acc, red->source), idx);
      init = ir::StoreNode::Make(out, red->Identity(), idx);
    } else {
      update = ir::StoreNode::Make(out, body, idx);
    }
    auto uses_reduce = [&](const Expr& g) {
      return ir::UsesVar(g, [&](const ir::VarNode* v) { return reduce_leaf_vars.count(v) > 0; });
    };
    Expr all = Expr(), data_only = Expr();
    for (const Expr& g : guards) {
      all = all.defined() ? (all && g) : g;
      if (!uses_reduce(g)) data_only = data_only.defined() ? (data_only && g) : g;
    }
    if (all.defined()) update = ir::IfThenElseNode::Make(ir::likely(all), update);
    if (init.defined() && data_only.defined()) {
      init = ir::IfThenElseNode::Make(ir::likely(data_only), init);
    }

    Stmt stmt = update;
    const auto& leaves = stage.leaf_ivars();
    for (int i = static_cast<int>(leaves.size()) - 1; i >= 0; --i) {
      auto attached = AttachProducers(stage, leaves[i], stmt);
      if (!attached.ok()) return attached.status();
      stmt = MakeLoop(stage, leaves[i], loops, *attached);
      if (i == first_reduce && init.defined()) {
        Stmt init_nest = init;
        for (int j = static_cast<int>(leaves.size()) - 1; j >= first_reduce; --j) {
          if (leaves[j]->kind == te::IterVarNode::Kind::kReduce) continue;
          init_nest = MakeLoop(stage, leaves[j], loops, init_nest);
        }
        stmt = ir::SeqNode::Make({init_nest, stmt});
      }
    }
    return stmt;
  }

  Stmt MakeLoop(const schedule::Stage& stage, const te::IterVar& leaf, const StageLoops& loops,
                Stmt body) {
    const schedule::IterVarAttr& attr = stage.attr(leaf);
    return ir::ForNode::Make(leaf->var, Expr(0),
                             Expr(static_cast<int>(loops.extent.at(leaf.get()))), attr.kind,
                             std::move(body), attr.thread_tag, attr.pragmas);
  }

  // Places the stages computed at (consumer, leaf) in front of `inner`, each in its own
  // region-sized buffer.
  absl::StatusOr<Stmt> AttachProducers(const schedule::Stage& consumer, const te::IterVar& leaf,
                                       Stmt inner) {
    const auto& stages = sch_.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      const schedule::Stage& p = **it;
      if (p.attach().kind != schedule::Attach::Kind::kScope || p.attach().stage != &consumer ||
          p.attach().ivar != leaf) {
        continue;
      }
      const RootDomain& dom = domains_.at(p.op());
      std::vector<Expr> shape;
      for (int64_t e : dom.extent) shape.push_back(Expr(static_cast<int>(e)));
      ir::Buffer realized = ir::MakeBuffer(p.op()->name, p.op()->dtype, shape, p.scope());
      AlignStrides(p, dom.extent, realized.get());
      auto nest = BuildStage(p, realized);
      if (!nest.ok()) return nest.status();
      inner = RealizeLoads(p.op(), realized, dom.min).Mutate(inner);
      inner = ir::AllocateNode::Make(realized, ir::SeqNode::Make({*nest, inner}));
    }
    return inner;
  }

  const schedule::Schedule& sch_;
  const Bodies& bodies_;
  const Domains& domains_;
  const ir::VarMap& bindings_;
};

}  // namespace

absl::StatusOr<Stmt> ScheduleOps(const schedule::Schedule& sch, const Bodies& bodies,
                                 const Domains& domains, const std::vector<te::Tensor>& args,
                                 const ir::VarMap& bindings) {
  return NestBuilder(sch, bodies, domains, bindings).Build(args);
}

}  // namespace tunefarm::lower
