#include "compiler/lower/unroll_loops.h"

#include <vector>

#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using ir::Stmt;

// What a statement would cost fully unrolled: its statement count, and whether loops remain.
struct Shape {
  int64_t steps = 1;
  bool has_loop = false;
};

class Unroller {
 public:
  explicit Unroller(int64_t max_step) : max_step_(max_step) {}

  Stmt Visit(const Stmt& s, Shape* shape) {
    *shape = Shape();
    if (!s.defined()) return s;
    if (const auto* op = s.as<ir::ForNode>()) return VisitFor(op, s, shape);
    if (const auto* op = s.as<ir::SeqNode>()) {
      std::vector<Stmt> out;
      bool changed = false;
      shape->steps = 0;
      for (const Stmt& c : op->stmts) {
        Shape cs;
        out.push_back(Visit(c, &cs));
        changed |= !out.back().same_as(c);
        shape->steps += cs.steps;
        shape->has_loop |= cs.has_loop;
      }
      return changed ? ir::SeqNode::Make(std::move(out)) : s;
    }
    if (const auto* op = s.as<ir::IfThenElseNode>()) {
      Shape ts, es;
      Stmt t = Visit(op->then_case, &ts);
      Stmt e = Visit(op->else_case, &es);
      shape->steps = ts.steps + es.steps;
      shape->has_loop = ts.has_loop || es.has_loop;
      if (t.same_as(op->then_case) && e.same_as(op->else_case)) return s;
      return ir::IfThenElseNode::Make(op->cond, t, e);
    }
    if (const auto* op = s.as<ir::AllocateNode>()) {
      Stmt b = Visit(op->body, shape);
      // Keep allocations out of auto-unrolled bodies.
      shape->has_loop = true;
      return b.same_as(op->body) ? s : ir::AllocateNode::Make(op->buffer, b);
    }
    if (const auto* op = s.as<ir::LetStmtNode>()) {
      Stmt b = Visit(op->body, shape);
      return b.same_as(op->body) ? s : ir::LetStmtNode::Make(op->var, op->value, b);
    }
    return s;
  }

 private:
  Stmt VisitFor(const ir::ForNode* op, const Stmt& self, Shape* shape) {
    if (op->pragmas.count("tensorize")) {
      // Replaced whole by a tensor intrinsic at code generation: never unrolled.
      shape->steps = 1;
      shape->has_loop = true;
      return self;
    }
    int64_t saved_max = max_step_;
    auto it = op->pragmas.find("auto_unroll_max_step");
    if (it != op->pragmas.end()) max_step_ = it->second;
    Shape bs;
    Stmt body = Visit(op->body, &bs);
    max_step_ = saved_max;
    const int64_t* mn = ir::AsConstInt(op->min);
    const int64_t* ext = ir::AsConstInt(op->extent);
    bool explicit_unroll = op->for_kind == ir::ForKind::kUnrolled && ext != nullptr &&
                           mn != nullptr && *ext <= kMaxExplicitUnroll;
    bool auto_unroll = op->for_kind == ir::ForKind::kSerial && ext != nullptr && mn != nullptr &&
                       max_step_ > 0 && !bs.has_loop && *ext * bs.steps <= max_step_;
    if (explicit_unroll || auto_unroll) {
      std::vector<Stmt> copies;
      for (int64_t i = 0; i < *ext; ++i) {
        copies.push_back(ir::Substitute(body, {{op->var.get(), Expr(static_cast<int>(*mn + i))}}));
      }
      shape->steps = *ext * bs.steps;
      shape->has_loop = bs.has_loop;
      return ir::SeqNode::Make(std::move(copies));
    }
    shape->steps = (ext != nullptr ? *ext : 1) * bs.steps;
    shape->has_loop = true;
    ir::ForKind kind = op->for_kind == ir::ForKind::kUnrolled ? ir::ForKind::kSerial : op->for_kind;
    if (body.same_as(op->body) && kind == op->for_kind) return self;
    return ir::ForNode::Make(op->var, op->min, op->extent, kind, body, op->thread_tag, op->pragmas);
  }

  int64_t max_step_;
};

}  // namespace

Stmt UnrollLoops(Stmt s, int64_t auto_unroll_max_step) {
  Shape shape;
  return Unroller(auto_unroll_max_step).Visit(s, &shape);
}

}  // namespace tunefarm::lower
