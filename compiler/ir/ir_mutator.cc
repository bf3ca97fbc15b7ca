#include "compiler/ir/ir_mutator.h"

namespace tunefarm::ir {

Expr IRMutator::Mutate(const Expr& e) {
  if (!e.defined()) return e;
  switch (e->kind) {
#define TF_DISPATCH(N) \
  case ExprKind::k##N: \
    return Mutate_(e.as<N##Node>(), e);
    TF_FOR_EACH_EXPR(TF_DISPATCH)
#undef TF_DISPATCH
  }
  return e;
}

Stmt IRMutator::Mutate(const Stmt& s) {
  if (!s.defined()) return s;
  switch (s->kind) {
#define TF_DISPATCH(N) \
  case StmtKind::k##N: \
    return Mutate_(s.as<N##Node>(), s);
    TF_FOR_EACH_STMT(TF_DISPATCH)
#undef TF_DISPATCH
  }
  return s;
}

std::vector<Expr> IRMutator::MutateAll(const std::vector<Expr>& es, bool* changed) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr& e : es) {
    out.push_back(Mutate(e));
    if (!out.back().same_as(e)) *changed = true;
  }
  return out;
}

Expr IRMutator::Mutate_(const IntImmNode*, const Expr& self) { return self; }
Expr IRMutator::Mutate_(const FloatImmNode*, const Expr& self) { return self; }
Expr IRMutator::Mutate_(const VarNode*, const Expr& self) { return self; }

Expr IRMutator::Mutate_(const BinaryNode* op, const Expr& self) {
  Expr a = Mutate(op->a), b = Mutate(op->b);
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return BinaryNode::Make(op->op, a, b);
}

Expr IRMutator::Mutate_(const NotNode* op, const Expr& self) {
  Expr a = Mutate(op->a);
  return a.same_as(op->a) ? self : NotNode::Make(a);
}

Expr IRMutator::Mutate_(const SelectNode* op, const Expr& self) {
  Expr c = Mutate(op->cond), t = Mutate(op->true_value), f = Mutate(op->false_value);
  if (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
    return self;
  }
  return SelectNode::Make(c, t, f);
}

Expr IRMutator::Mutate_(const CastNode* op, const Expr& self) {
  Expr v = Mutate(op->value);
  return v.same_as(op->value) ? self : CastNode::Make(op->type, v);
}

Expr IRMutator::Mutate_(const CallNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> args = MutateAll(op->args, &changed);
  if (!changed) return self;
  if (op->horizontal()) return CallNode::Make(op->type, op->name, std::move(args));
  int lanes = 1;
  for (const Expr& a : args) lanes = std::max(lanes, a.type().lanes);
  return CallNode::Make(op->type.with_lanes(lanes), op->name, std::move(args));
}

Expr IRMutator::Mutate_(const LoadNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> idx = MutateAll(op->indices, &changed);
  return changed ? LoadNode::Make(op->buffer, std::move(idx)) : self;
}

Expr IRMutator::Mutate_(const RampNode* op, const Expr& self) {
  Expr b = Mutate(op->base), s = Mutate(op->stride);
  if (b.same_as(op->base) && s.same_as(op->stride)) return self;
  return RampNode::Make(b, s, op->lanes);
}

Expr IRMutator::Mutate_(const BroadcastNode* op, const Expr& self) {
  Expr v = Mutate(op->value);
  return v.same_as(op->value) ? self : BroadcastNode::Make(v, op->lanes);
}

Expr IRMutator::Mutate_(const LetNode* op, const Expr& self) {
  Expr v = Mutate(op->value), b = Mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  return LetNode::Make(op->var, v, b);
}

Expr IRMutator::Mutate_(const ReduceNode* op, const Expr& self) {
  Expr s = Mutate(op->source);
  bool changed = !s.same_as(op->source);
  std::vector<Range> ranges;
  for (const Range& r : op->ranges) {
    Range nr{Mutate(r.min), Mutate(r.extent)};
    changed |= !nr.min.same_as(r.min) || !nr.extent.same_as(r.extent);
    ranges.push_back(nr);
  }
  return changed ? ReduceNode::Make(op->op, s, op->axes, ranges) : self;
}

Stmt IRMutator::Mutate_(const LetStmtNode* op, const Stmt& self) {
  Expr v = Mutate(op->value);
  Stmt b = Mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  return LetStmtNode::Make(op->var, v, b);
}

Stmt IRMutator::Mutate_(const ForNode* op, const Stmt& self) {
  Expr mn = Mutate(op->min), ext = Mutate(op->extent);
  Stmt body = Mutate(op->body);
  if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return self;
  return ForNode::Make(op->var, mn, ext, op->for_kind, body, op->thread_tag, op->pragmas);
}

Stmt IRMutator::Mutate_(const IfThenElseNode* op, const Stmt& self) {
  Expr c = Mutate(op->cond);
  Stmt t = Mutate(op->then_case), e = Mutate(op->else_case);
  if (c.same_as(op->cond) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
  return IfThenElseNode::Make(c, t, e);
}

Stmt IRMutator::Mutate_(const AllocateNode* op, const Stmt& self) {
  Stmt b = Mutate(op->body);
  return b.same_as(op->body) ? self : AllocateNode::Make(op->buffer, b);
}

Stmt IRMutator::Mutate_(const StoreNode* op, const Stmt& self) {
  Expr v = Mutate(op->value);
  bool changed = !v.same_as(op->value);
  std::vector<Expr> idx = MutateAll(op->indices, &changed);
  return changed ? StoreNode::Make(op->buffer, v, std::move(idx)) : self;
}

Stmt IRMutator::Mutate_(const EvaluateNode* op, const Stmt& self) {
  Expr v = Mutate(op->value);
  return v.same_as(op->value) ? self : EvaluateNode::Make(v);
}

Stmt IRMutator::Mutate_(const SeqNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> out;
  for (const Stmt& s : op->stmts) {
    out.push_back(Mutate(s));
    changed |= !out.back().same_as(s);
  }
  return changed ? SeqNode::Make(std::move(out)) : self;
}

}  // namespace tunefarm::ir
