#include "compiler/ir/ir_equality.h"

#include <cstring>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::ir {
namespace {

// Compares two trees in lockstep. Bound variables of `a` map to those of `b`.
class Comparer {
 public:
  bool Eq(const Expr& a, const Expr& b) {
    if (a.defined() != b.defined()) return false;
    if (!a.defined() || a.same_as(b)) return true;
    if (a->kind != b->kind || a.type() != b.type()) return false;
    switch (a->kind) {
      case ExprKind::kIntImm:
        return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
      case ExprKind::kFloatImm:
        return a.as<FloatImmNode>()->value == b.as<FloatImmNode>()->value;
      case ExprKind::kVar: {
        auto it = bound_.find(a.as<VarNode>());
        return it != bound_.end() ? it->second == b.as<VarNode>() : a.same_as(b);
      }
      case ExprKind::kBinary: {
        const auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
        return x->op == y->op && Eq(x->a, y->a) && Eq(x->b, y->b);
      }
      case ExprKind::kNot:
        return Eq(a.as<NotNode>()->a, b.as<NotNode>()->a);
      case ExprKind::kSelect: {
        const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
        return Eq(x->cond, y->cond) && Eq(x->true_value, y->true_value) &&
               Eq(x->false_value, y->false_value);
      }
      case ExprKind::kCast:
        return Eq(a.as<CastNode>()->value, b.as<CastNode>()->value);
      case ExprKind::kCall: {
        const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
        return x->name == y->name && EqAll(x->args, y->args);
      }
      case ExprKind::kLoad: {
        const auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
        return x->buffer == y->buffer && EqAll(x->indices, y->indices);
      }
      case ExprKind::kRamp: {
        const auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
        return x->lanes == y->lanes && Eq(x->base, y->base) && Eq(x->stride, y->stride);
      }
      case ExprKind::kBroadcast: {
        const auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
        return x->lanes == y->lanes && Eq(x->value, y->value);
      }
      case ExprKind::kLet: {
        const auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
        if (!Eq(x->value, y->value)) return false;
        bound_[x->var.get()] = y->var.get();
        return Eq(x->body, y->body);
      }
      case ExprKind::kReduce: {
        const auto *x = a.as<ReduceNode>(), *y = b.as<ReduceNode>();
        if (x->op != y->op || x->axes.size() != y->axes.size()) return false;
        for (size_t i = 0; i < x->axes.size(); ++i) {
          if (!Eq(x->ranges[i].min, y->ranges[i].min) ||
              !Eq(x->ranges[i].extent, y->ranges[i].extent)) {
            return false;
          }
          bound_[x->axes[i].get()] = y->axes[i].get();
        }
        return Eq(x->source, y->source);
      }
    }
    return false;
  }

  bool Eq(const Stmt& a, const Stmt& b) {
    if (a.defined() != b.defined()) return false;
    if (!a.defined() || a.same_as(b)) return true;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case StmtKind::kLetStmt: {
        const auto *x = a.as<LetStmtNode>(), *y = b.as<LetStmtNode>();
        if (!Eq(x->value, y->value)) return false;
        bound_[x->var.get()] = y->var.get();
        return Eq(x->body, y->body);
      }
      case StmtKind::kFor: {
        const auto *x = a.as<ForNode>(), *y = b.as<ForNode>();
        if (x->for_kind != y->for_kind || x->thread_tag != y->thread_tag ||
            x->pragmas != y->pragmas || !Eq(x->min, y->min) || !Eq(x->extent, y->extent)) {
          return false;
        }
        bound_[x->var.get()] = y->var.get();
        return Eq(x->body, y->body);
      }
      case StmtKind::kIfThenElse: {
        const auto *x = a.as<IfThenElseNode>(), *y = b.as<IfThenElseNode>();
        return Eq(x->cond, y->cond) && Eq(x->then_case, y->then_case) &&
               Eq(x->else_case, y->else_case);
      }
      case StmtKind::kAllocate: {
        const auto *x = a.as<AllocateNode>(), *y = b.as<AllocateNode>();
        return x->buffer == y->buffer && Eq(x->body, y->body);
      }
      case StmtKind::kStore: {
        const auto *x = a.as<StoreNode>(), *y = b.as<StoreNode>();
        return x->buffer == y->buffer && Eq(x->value, y->value) && EqAll(x->indices, y->indices);
      }
      case StmtKind::kEvaluate:
        return Eq(a.as<EvaluateNode>()->value, b.as<EvaluateNode>()->value);
      case StmtKind::kSeq: {
        const auto *x = a.as<SeqNode>(), *y = b.as<SeqNode>();
        if (x->stmts.size() != y->stmts.size()) return false;
        for (size_t i = 0; i < x->stmts.size(); ++i) {
          if (!Eq(x->stmts[i], y->stmts[i])) return false;
        }
        return true;
      }
    }
    return false;
  }

 private:
  bool EqAll(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Eq(a[i], b[i])) return false;
    }
    return true;
  }

  absl::flat_hash_map<const VarNode*, const VarNode*> bound_;
};

// Hashes kinds, types and constants in visiting order. Bound variables hash by the order in
// which they were bound, free variables by name, buffers by name: all stable under renaming.
class Hasher : public IRVisitor {
 public:
  uint64_t h = 1469598103934665603ull;

  void Visit(const Expr& e) override {
    if (!e.defined()) {
      Mix(0);
      return;
    }
    Mix(static_cast<uint64_t>(e->kind) + 1);
    Mix(static_cast<uint64_t>(e.type().code) * 131 + e.type().bits * 7 + e.type().lanes);
    IRVisitor::Visit(e);
  }
  void Visit(const Stmt& s) override {
    if (!s.defined()) {
      Mix(0);
      return;
    }
    Mix(static_cast<uint64_t>(s->kind) + 101);
    IRVisitor::Visit(s);
  }

 protected:
  void Visit_(const IntImmNode* op) override { Mix(static_cast<uint64_t>(op->value)); }
  void Visit_(const FloatImmNode* op) override {
    uint64_t bits;
    std::memcpy(&bits, &op->value, sizeof(bits));
    Mix(bits);
  }
  void Visit_(const VarNode* op) override {
    auto it = bound_.find(op);
    Mix(it != bound_.end() ? it->second : absl::Hash<std::string>()(op->name));
  }
  void Visit_(const BinaryNode* op) override {
    Mix(static_cast<uint64_t>(op->op));
    IRVisitor::Visit_(op);
  }
  void Visit_(const CallNode* op) override {
    Mix(absl::Hash<std::string>()(op->name));
    IRVisitor::Visit_(op);
  }
  void Visit_(const LoadNode* op) override {
    Mix(absl::Hash<std::string>()(op->buffer->name));
    IRVisitor::Visit_(op);
  }
  void Visit_(const StoreNode* op) override {
    Mix(absl::Hash<std::string>()(op->buffer->name));
    IRVisitor::Visit_(op);
  }
  void Visit_(const LetNode* op) override {
    Bind(op->var.get());
    IRVisitor::Visit_(op);
  }
  void Visit_(const LetStmtNode* op) override {
    Bind(op->var.get());
    IRVisitor::Visit_(op);
  }
  void Visit_(const ForNode* op) override {
    Mix(static_cast<uint64_t>(op->for_kind));
    Bind(op->var.get());
    IRVisitor::Visit_(op);
  }
  void Visit_(const ReduceNode* op) override {
    Mix(static_cast<uint64_t>(op->op));
    for (const Var& v : op->axes) Bind(v.get());
    IRVisitor::Visit_(op);
  }

 private:
  void Mix(uint64_t v) { h = (h ^ v) * 1099511628211ull; }
  void Bind(const VarNode* v) { bound_.emplace(v, bound_.size() + 7919); }

  absl::flat_hash_map<const VarNode*, uint64_t> bound_;
};

}  // namespace

bool StructuralEqual(const Expr& a, const Expr& b) { return Comparer().Eq(a, b); }
bool StructuralEqual(const Stmt& a, const Stmt& b) { return Comparer().Eq(a, b); }

uint64_t StructuralHash(const Expr& e) {
  Hasher h;
  h.Visit(e);
  return h.h;
}

uint64_t StructuralHash(const Stmt& s) {
  Hasher h;
  h.Visit(s);
  return h.h;
}

}  // namespace tunefarm::ir
