#include "compiler/lower/schedule_ops.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"
#include "compiler/lower/insert_barriers.h"

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

ir::Buffer AsBuffer(const std::shared_ptr<const te::OperationNode>& op) { return op; }

// The strides storage_align asks for (empty: compact row-major).
std::vector<Expr> AlignedStrides(const schedule::Stage& stage,
                                 const std::vector<int64_t>& extents) {
  if (stage.storage_aligns().empty()) return {};
  std::vector<int64_t> strides(extents.size(), 1);
  for (int d = static_cast<int>(extents.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * extents[d + 1];
    for (const schedule::StorageAlign& a : stage.storage_aligns()) {
      if (a.axis == d) strides[d] += ((a.offset - strides[d] % a.factor) + a.factor) % a.factor;
    }
  }
  std::vector<Expr> out;
  for (int64_t s : strides) out.push_back(Expr(static_cast<int>(s)));
  return out;
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
    for (size_t i = 0; i < stage.leaf_ivars().size(); ++i) {
      const te::IterVar& leaf = stage.leaf_ivars()[i];
      if (leaf->kind == te::IterVarNode::Kind::kReduce &&
          stage.attr(leaf).thread_tag.rfind("threadIdx", 0) == 0) {
        return BuildThreadReduction(stage, out, idx, body.as<ir::ReduceNode>(), all, data_only,
                                    first_reduce, static_cast<int>(i), loops);
      }
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

  // A reduction whose reduce loop `bound` runs on the threads of threadIdx.* (a cross-thread
  // reduction, TVM's allreduce): every thread folds its share into a register, the shares
  // meet in a shared buffer, a tree of halving steps (a barrier after each) combines them,
  // and thread 0 writes the result. The reduce loops must be the innermost loops, and no other
  // loop around the reduction may be bound to a thread index (the shared buffer serves one
  // reduction at a time).
  absl::StatusOr<Stmt> BuildThreadReduction(const schedule::Stage& stage, const ir::Buffer& out,
                                            const std::vector<Expr>& idx, const ir::ReduceNode* red,
                                            const Expr& all_guards, const Expr& data_guards,
                                            int first_reduce, int bound, const StageLoops& loops) {
    const auto& leaves = stage.leaf_ivars();
    const std::string& name = stage.op()->name;
    auto fail = [&](const std::string& why) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cross-thread reduction of '", name, "' over '", leaves[bound]->name(), "': ", why));
    };
    if (red == nullptr) return fail("the stage's body is not a reduction");
    for (size_t i = first_reduce; i < leaves.size(); ++i) {
      if (leaves[i]->kind != te::IterVarNode::Kind::kReduce) {
        return fail(absl::StrCat("data loop '", leaves[i]->name(),
                                 "' is inside the reduction; reorder the reduce loops innermost"));
      }
      if (static_cast<int>(i) != bound &&
          stage.attr(leaves[i]).thread_tag.rfind("threadIdx", 0) == 0) {
        return fail("only one reduce loop may be bound to a thread index");
      }
      for (const auto& p : sch_.stages()) {
        if (p->attach().kind == schedule::Attach::Kind::kScope && p->attach().stage == &stage &&
            p->attach().ivar == leaves[i]) {
          return fail(absl::StrCat("'", p->op()->name, "' is computed inside the reduction"));
        }
      }
    }
    auto thread_bound = [&](const schedule::Stage& s, const te::IterVar& leaf) {
      return s.attr(leaf).thread_tag.rfind("threadIdx", 0) == 0;
    };
    for (int i = 0; i < first_reduce; ++i) {
      if (thread_bound(stage, leaves[i])) {
        return fail(absl::StrCat("data loop '", leaves[i]->name(),
                                 "' is bound to a thread index too; bind data loops to blockIdx"));
      }
    }
    for (const schedule::Stage* s = &stage; s->attach().kind == schedule::Attach::Kind::kScope;
         s = s->attach().stage) {
      const schedule::Stage& parent = *s->attach().stage;
      for (const te::IterVar& leaf : parent.leaf_ivars()) {
        if (thread_bound(parent, leaf)) {
          return fail(absl::StrCat("it is computed inside '", parent.op()->name, "''s loop '",
                                   leaf->name(), "', which is bound to a thread index"));
        }
        if (leaf == s->attach().ivar) break;
      }
    }
    const ir::Var& rt = leaves[bound]->var;
    const int64_t threads = loops.extent.at(leaves[bound].get());
    ir::Buffer partial = ir::MakeBuffer(name + ".partial", red->type, {Expr(1)}, "local");
    ir::Buffer shares =
        ir::MakeBuffer(name + ".red", red->type, {Expr(static_cast<int>(threads))}, "shared");
    auto at = [](const ir::Buffer& b, Expr i) { return ir::LoadNode::Make(b, {std::move(i)}); };
    // This thread's share.
    Stmt fold =
        ir::StoreNode::Make(partial, red->Combine(at(partial, Expr(0)), red->source), {Expr(0)});
    if (all_guards.defined()) fold = ir::IfThenElseNode::Make(ir::likely(all_guards), fold);
    for (int i = static_cast<int>(leaves.size()) - 1; i >= first_reduce; --i) {
      if (i != bound) fold = MakeLoop(stage, leaves[i], loops, fold);
    }
    std::vector<Stmt> steps = {
        ir::AllocateNode::Make(
            partial, ir::SeqNode::Make({ir::StoreNode::Make(partial, red->Identity(), {Expr(0)}),
                                        fold, ir::StoreNode::Make(shares, at(partial, 0), {rt})})),
        MakeBarrier()};
    // Halving steps: first fold the part beyond the largest power of two.
    auto combine = [&](int64_t offset, int64_t active) {
      Stmt step = ir::StoreNode::Make(
          shares, red->Combine(at(shares, rt), at(shares, rt + Expr(static_cast<int>(offset)))),
          {rt});
      steps.push_back(
          ir::IfThenElseNode::Make(rt < Expr(static_cast<int>(active)), std::move(step)));
      steps.push_back(MakeBarrier());
    };
    int64_t pow2 = 1;
    while (pow2 * 2 <= threads) pow2 *= 2;
    if (pow2 < threads) combine(pow2, threads - pow2);
    for (int64_t half = pow2 / 2; half >= 1; half /= 2) combine(half, half);
    Expr writer = ir::eq(rt, Expr(0));
    if (data_guards.defined()) writer = writer && data_guards;
    steps.push_back(
        ir::IfThenElseNode::Make(writer, ir::StoreNode::Make(out, at(shares, Expr(0)), idx)));
    // The next reduction reuses the shares: thread 0 must have read them first.
    steps.push_back(MakeBarrier());
    const schedule::IterVarAttr& attr = stage.attr(leaves[bound]);
    Stmt stmt = ir::AllocateNode::Make(
        shares, ir::ForNode::Make(rt, Expr(0), Expr(static_cast<int>(threads)), attr.kind,
                                  ir::SeqNode::Make(std::move(steps)), attr.thread_tag));
    for (int i = first_reduce - 1; i >= 0; --i) {
      auto attached = AttachProducers(stage, leaves[i], stmt);
      if (!attached.ok()) return attached.status();
      stmt = MakeLoop(stage, leaves[i], loops, *attached);
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
      ir::Buffer realized = ir::MakeBuffer(p.op()->name, p.op()->dtype, shape, p.scope(),
                                           AlignedStrides(p, dom.extent));
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
