#include "compiler/lower/simplify.h"

#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_util.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using ir::Stmt;

class StmtSimplifier : public ir::IRMutator {
 public:
  using IRMutator::Mutate;
  Expr Mutate(const Expr& e) override { return an_.Simplify(e); }

 protected:
  Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
    Expr mn = an_.Simplify(op->min);
    Expr ext = an_.Simplify(op->extent);
    const int64_t* ce = ir::AsConstInt(ext);
    if (ce != nullptr && *ce <= 0) return ir::EvaluateNode::Make(0);
    if (ce != nullptr && *ce == 1 && op->thread_tag.empty()) {
      // A single iteration: substitute the variable.
      Stmt body = ir::Substitute(op->body, {{op->var.get(), mn}});
      return Mutate(body);
    }
    if (ce != nullptr && *ce == 1) {
      // A GPU index of extent 1 is always `min`: substitute it (indices become constants, e.g.
      // of register tiles) but keep the loop, which records the launch dimension.
      Stmt body = Mutate(ir::Substitute(op->body, {{op->var.get(), mn}}));
      return ir::ForNode::Make(op->var, mn, ext, op->for_kind, body, op->thread_tag, op->pragmas);
    }
    an_.Bind(op->var, mn, ext);
    Stmt body = Mutate(op->body);
    an_.Unbind(op->var.get());
    if (ir::IsNoOp(body)) return ir::EvaluateNode::Make(0);
    if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return self;
    return ir::ForNode::Make(op->var, mn, ext, op->for_kind, body, op->thread_tag, op->pragmas);
  }

  Stmt Mutate_(const ir::IfThenElseNode* op, const Stmt& self) override {
    Expr c = an_.Simplify(op->cond);
    if (const int64_t* v = ir::AsConstInt(c)) {
      if (*v) return Mutate(op->then_case);
      return op->else_case.defined() ? Mutate(op->else_case) : ir::EvaluateNode::Make(0);
    }
    Stmt t = Mutate(op->then_case);
    Stmt e = Mutate(op->else_case);
    if (ir::IsNoOp(t) && (!e.defined() || ir::IsNoOp(e))) return ir::EvaluateNode::Make(0);
    if (c.same_as(op->cond) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
    return ir::IfThenElseNode::Make(c, t, e);
  }

  // A store of the value just loaded from the same element is a no-op (an accumulator whose
  // every term was a padding's zero: acc = acc + 0).
  Stmt Mutate_(const ir::StoreNode* op, const Stmt& self) override {
    Stmt s = IRMutator::Mutate_(op, self);
    const auto* st = s.as<ir::StoreNode>();
    const auto* load = st == nullptr ? nullptr : st->value.as<ir::LoadNode>();
    if (load != nullptr && load->buffer == st->buffer &&
        load->indices.size() == st->indices.size()) {
      bool same = true;
      for (size_t i = 0; i < st->indices.size() && same; ++i) {
        same = ir::StructuralEqual(load->indices[i], st->indices[i]);
      }
      if (same) return ir::EvaluateNode::Make(0);
    }
    return s;
  }

  Stmt Mutate_(const ir::AllocateNode* op, const Stmt& self) override {
    Stmt b = Mutate(op->body);
    if (ir::IsNoOp(b)) return b;
    return b.same_as(op->body) ? self : ir::AllocateNode::Make(op->buffer, b);
  }

 private:
  arith::Analyzer an_;
};

}  // namespace

Stmt Simplify(Stmt s) { return StmtSimplifier().Mutate(s); }

}  // namespace tunefarm::lower
