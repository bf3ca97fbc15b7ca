#include "compiler/lower/vectorize_loops.h"

#include <optional>

#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using ir::Stmt;

// Rewrites a loop body with the loop variable replaced by a Ramp. Sets `failed` on anything it
// cannot express with vectors.
class Vectorizer : public ir::IRMutator {
 public:
  // `single_store`: the loop's body is one store (a reduction's update may then be combined
  // horizontally: no other statement of the iteration could read the element in between).
  Vectorizer(const ir::VarNode* var, Expr min, int lanes, bool single_store)
      : var_(var),
        ramp_(ir::RampNode::Make(min, Expr(1), lanes)),
        lanes_(lanes),
        single_store_(single_store) {}
  bool failed = false;

  using IRMutator::Mutate;

 protected:
  Expr Mutate_(const ir::VarNode* op, const Expr& self) override {
    if (op == var_) return ramp_;
    auto it = let_vectors_.find(op);
    return it != let_vectors_.end() ? it->second : self;
  }

  Expr Mutate_(const ir::BinaryNode* op, const Expr& self) override {
    Expr a = Mutate(op->a), b = Mutate(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return self;
    // A broadcast operand takes part as the scalar it repeats.
    const auto* ba = a.as<ir::BroadcastNode>();
    const auto* bb = b.as<ir::BroadcastNode>();
    if (ba != nullptr && (bb != nullptr ? bb->lanes == ba->lanes : b.type().is_scalar())) {
      Expr y = bb != nullptr ? bb->value : b;
      return ir::BroadcastNode::Make(ir::BinaryNode::Make(op->op, ba->value, y), ba->lanes);
    }
    if (bb != nullptr && a.type().is_scalar()) {
      return ir::BroadcastNode::Make(ir::BinaryNode::Make(op->op, a, bb->value), bb->lanes);
    }
    if (ba != nullptr && b.as<ir::RampNode>() != nullptr) a = ba->value;
    if (bb != nullptr && a.as<ir::RampNode>() != nullptr) b = bb->value;
    // Ramp arithmetic with scalars stays a Ramp (keeps loads contiguous).
    const auto* ra = a.as<ir::RampNode>();
    const auto* rb = b.as<ir::RampNode>();
    if (ra != nullptr && b.type().is_scalar()) {
      if (op->op == ir::BinaryOp::kAdd)
        return ir::RampNode::Make(ra->base + b, ra->stride, ra->lanes);
      if (op->op == ir::BinaryOp::kSub)
        return ir::RampNode::Make(ra->base - b, ra->stride, ra->lanes);
      if (op->op == ir::BinaryOp::kMul) {
        return ir::RampNode::Make(ra->base * b, ra->stride * b, ra->lanes);
      }
      // A unit ramp that starts at a multiple of its lanes, divided by a multiple of its
      // lanes, stays within one quotient: floordiv is a broadcast, floormod a ramp (the index
      // arithmetic of a fused loop split for vectorization stays contiguous).
      const int64_t* c = ir::AsConstInt(b);
      const int64_t* stride = ir::AsConstInt(ra->stride);
      if (c != nullptr && stride != nullptr && *stride == 1 && *c > 0 && *c % ra->lanes == 0 &&
          ir::KnownMultiple(ra->base) % ra->lanes == 0) {
        if (op->op == ir::BinaryOp::kFloorDiv) {
          return ir::BroadcastNode::Make(ir::floordiv(ra->base, b), ra->lanes);
        }
        if (op->op == ir::BinaryOp::kFloorMod) {
          return ir::RampNode::Make(ir::floormod(ra->base, b), ra->stride, ra->lanes);
        }
      }
    }
    if (rb != nullptr && a.type().is_scalar()) {
      if (op->op == ir::BinaryOp::kAdd)
        return ir::RampNode::Make(a + rb->base, rb->stride, rb->lanes);
      if (op->op == ir::BinaryOp::kMul) {
        return ir::RampNode::Make(a * rb->base, a * rb->stride, rb->lanes);
      }
    }
    if (ra != nullptr && rb != nullptr && ra->lanes == rb->lanes) {
      if (op->op == ir::BinaryOp::kAdd) {
        return ir::RampNode::Make(ra->base + rb->base, ra->stride + rb->stride, ra->lanes);
      }
    }
    Expr x = Widen(a), y = Widen(b);
    return ir::BinaryNode::Make(op->op, x, y);
  }

  Expr Mutate_(const ir::SelectNode* op, const Expr& self) override {
    Expr c = Mutate(op->cond), t = Mutate(op->true_value), f = Mutate(op->false_value);
    if (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
      return self;
    }
    if (!ir::LoadsAllIn(op->true_value, op->cond) || !ir::LoadsAllIn(op->false_value, op->cond)) {
      // Both sides of a vector select would be loaded in every lane, including lanes whose
      // condition protects an out-of-bounds access (loads the condition makes itself are
      // made in every lane anyway: a clamp, select(x > c, c, x)).
      failed = true;
      return self;
    }
    return ir::SelectNode::Make(Widen(c), Widen(t), Widen(f));
  }

  Expr Mutate_(const ir::CastNode* op, const Expr& self) override {
    Expr v = Mutate(op->value);
    if (v.same_as(op->value)) return self;
    v = Widen(v);
    return ir::CastNode::Make(op->type.with_lanes(v.type().lanes), v);
  }

  Expr Mutate_(const ir::CallNode* op, const Expr& self) override {
    if (op->name == "likely") {
      failed = true;  // A guard that depends on the vector lane.
      return self;
    }
    bool changed = false;
    std::vector<Expr> args = MutateAll(op->args, &changed);
    if (!changed) return self;
    for (Expr& a : args) a = Widen(a);
    return ir::CallNode::Make(op->type.with_lanes(lanes_), op->name, std::move(args));
  }

  Expr Mutate_(const ir::LoadNode* op, const Expr& self) override {
    bool changed = false;
    std::vector<Expr> idx = MutateAll(op->indices, &changed);
    if (!changed) return self;
    for (Expr& i : idx) i = WidenIndex(i);
    return ir::LoadNode::Make(op->buffer, std::move(idx));
  }

  Expr Mutate_(const ir::LetNode* op, const Expr& self) override {
    failed = true;
    return self;
  }

  // Vectors already in the body come from an inner vectorized loop. Their lanes are not this
  // loop's lanes even when the counts match (Widen would take a 4-lane inner ramp for this
  // loop's 4 lanes and build a ramp of vectors, which LLVM rejects), so this loop stays scalar.
  Expr Mutate_(const ir::RampNode* op, const Expr& self) override {
    failed = true;
    return self;
  }
  Expr Mutate_(const ir::BroadcastNode* op, const Expr& self) override {
    failed = true;
    return self;
  }

  Stmt Mutate_(const ir::StoreNode* op, const Stmt& self) override {
    if (const auto* sel = op->value.as<ir::SelectNode>();
        sel != nullptr &&
        (ir::ContainsLoad(sel->true_value) || ir::ContainsLoad(sel->false_value)) &&
        Mutate(sel->cond).same_as(sel->cond)) {
      // A condition the same in every lane (a padding's bounds when the lanes are a channel
      // block) becomes a branch around two vector stores: no lane loads what it guards.
      return ir::IfThenElseNode::Make(
          sel->cond, Mutate(ir::StoreNode::Make(op->buffer, sel->true_value, op->indices)),
          Mutate(ir::StoreNode::Make(op->buffer, sel->false_value, op->indices)));
    }
    bool changed = false;
    std::vector<Expr> idx = MutateAll(op->indices, &changed);
    if (!changed) return HorizontalUpdate(op, self);
    Expr v = Mutate(op->value);
    for (Expr& i : idx) i = WidenIndex(i);
    return ir::StoreNode::Make(op->buffer, Widen(v), std::move(idx));
  }

  // A store whose element is the same in every lane: only a reduction's update
  // `B[i] = B[i] op f(lane)` (op: +, max, min) can be vectorized, as
  // `B[i] = B[i] op vector_reduce_<op>(f(ramp))`; anything else would have every lane write the
  // same element, and the loop stays scalar.
  Stmt HorizontalUpdate(const ir::StoreNode* op, const Stmt& self) {
    static const absl::flat_hash_map<ir::BinaryOp, const char*> kReduce = {
        {ir::BinaryOp::kAdd, "vector_reduce_add"},
        {ir::BinaryOp::kMax, "vector_reduce_max"},
        {ir::BinaryOp::kMin, "vector_reduce_min"}};
    const auto* bin = op->value.as<ir::BinaryNode>();
    auto it = bin != nullptr ? kReduce.find(bin->op) : kReduce.end();
    const auto* acc = bin != nullptr ? bin->a.as<ir::LoadNode>() : nullptr;
    if (it == kReduce.end() || acc == nullptr || acc->buffer != op->buffer ||
        acc->indices.size() != op->indices.size() || !single_store_) {
      failed = true;
      return self;
    }
    for (size_t d = 0; d < acc->indices.size(); ++d) {
      if (!ir::StructuralEqual(acc->indices[d], op->indices[d])) {
        failed = true;
        return self;
      }
    }
    Expr lanes = Widen(Mutate(bin->b));
    if (failed) return self;
    Expr sum = ir::CallNode::Make(bin->b.type(), it->second, {lanes});
    return ir::StoreNode::Make(op->buffer, ir::BinaryNode::Make(bin->op, bin->a, sum), op->indices);
  }

  Stmt Mutate_(const ir::IfThenElseNode* op, const Stmt& self) override {
    Expr c = Mutate(op->cond);
    if (!c.same_as(op->cond)) {
      failed = true;
      return self;
    }
    return IRMutator::Mutate_(op, self);
  }

  Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
    Expr mn = Mutate(op->min), ext = Mutate(op->extent);
    if (!mn.same_as(op->min) || !ext.same_as(op->extent) ||
        op->for_kind == ir::ForKind::kParallel) {
      failed = true;
      return self;
    }
    return IRMutator::Mutate_(op, self);
  }

  Stmt Mutate_(const ir::AllocateNode* op, const Stmt& self) override {
    failed = true;
    return self;
  }

  Stmt Mutate_(const ir::LetStmtNode* op, const Stmt& self) override {
    Expr v = Mutate(op->value);
    if (!v.same_as(op->value)) {
      let_vectors_[op->var.get()] = v;
    }
    return IRMutator::Mutate_(op, self);
  }

 private:
  Expr Widen(const Expr& e) {
    if (e.type().lanes == lanes_) return e;
    if (e.type().is_scalar()) return ir::BroadcastNode::Make(e, lanes_);
    failed = true;
    return e;
  }
  // Every index of a multi-dimensional access must have the same lane count.
  Expr WidenIndex(const Expr& e) { return Widen(e); }

  const ir::VarNode* var_;
  Expr ramp_;
  int lanes_;
  bool single_store_;
  absl::flat_hash_map<const ir::VarNode*, Expr> let_vectors_;
};

class LoopVectorizer : public ir::IRMutator {
 protected:
  Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
    Stmt body = Mutate(op->body);
    if (op->for_kind != ir::ForKind::kVectorized) {
      return body.same_as(op->body) ? self
                                    : ir::ForNode::Make(op->var, op->min, op->extent, op->for_kind,
                                                        body, op->thread_tag, op->pragmas);
    }
    const int64_t* ext = ir::AsConstInt(op->extent);
    if (ext != nullptr && *ext > 1 && *ext <= kMaxVectorLanes) {
      Vectorizer v(op->var.get(), op->min, static_cast<int>(*ext),
                   body.as<ir::StoreNode>() != nullptr);
      Stmt vec = v.Mutate(body);
      if (!v.failed) return vec;
    }
    return ir::ForNode::Make(op->var, op->min, op->extent, ir::ForKind::kSerial, body,
                             op->thread_tag, op->pragmas);
  }
};

}  // namespace

Stmt VectorizeLoops(Stmt s) { return LoopVectorizer().Mutate(s); }

}  // namespace tunefarm::lower
