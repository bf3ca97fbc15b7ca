#include "compiler/ir/ir_util.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::ir {
namespace {

class Substituter : public IRMutator {
 public:
  explicit Substituter(const VarMap& vmap) : vmap_(vmap) {}

 protected:
  Expr Mutate_(const VarNode* op, const Expr& self) override {
    auto it = vmap_.find(op);
    return it == vmap_.end() ? self : it->second;
  }

 private:
  const VarMap& vmap_;
};

class VarCollector : public IRVisitor {
 public:
  absl::flat_hash_set<const VarNode*> vars;

 protected:
  void Visit_(const VarNode* op) override { vars.insert(op); }
  void Visit_(const ForNode* op) override {
    vars.insert(op->var.get());
    IRVisitor::Visit_(op);
  }
};

class LoadFinder : public IRVisitor {
 public:
  bool found = false;

 protected:
  void Visit_(const LoadNode*) override { found = true; }
};

}  // namespace

bool ContainsLoad(const Expr& e) {
  LoadFinder f;
  f.Visit(e);
  return f.found;
}

namespace {

class LoadCollector : public IRVisitor {
 public:
  std::vector<Expr> loads;
  using IRVisitor::Visit;
  void Visit(const Expr& e) override {
    if (e.as<LoadNode>() != nullptr) loads.push_back(e);
    IRVisitor::Visit(e);
  }
};

}  // namespace

bool LoadsAllIn(const Expr& e, const Expr& other) {
  LoadCollector mine, theirs;
  mine.Visit(e);
  if (mine.loads.empty()) return true;
  theirs.Visit(other);
  for (const Expr& l : mine.loads) {
    bool found = false;
    for (const Expr& o : theirs.loads) {
      if (StructuralEqual(l, o)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

namespace {

class NodeCounter : public IRVisitor {
 public:
  int64_t nodes = 0;
  using IRVisitor::Visit;
  void Visit(const Expr& e) override {
    ++nodes;
    IRVisitor::Visit(e);
  }
  void Visit(const Stmt& s) override {
    ++nodes;
    IRVisitor::Visit(s);
  }
};

}  // namespace

int64_t CountNodes(const Stmt& s) {
  NodeCounter c;
  c.Visit(s);
  return c.nodes;
}

Expr Substitute(const Expr& e, const VarMap& vmap) {
  if (vmap.empty()) return e;
  return Substituter(vmap).Mutate(e);
}

Stmt Substitute(const Stmt& s, const VarMap& vmap) {
  if (vmap.empty()) return s;
  return Substituter(vmap).Mutate(s);
}

absl::flat_hash_set<const VarNode*> VarsOf(const Expr& e) {
  VarCollector c;
  c.Visit(e);
  return std::move(c.vars);
}

bool UsesVar(const Expr& e, const std::function<bool(const VarNode*)>& pred) {
  for (const VarNode* v : VarsOf(e)) {
    if (pred(v)) return true;
  }
  return false;
}

bool UsesVar(const Stmt& s, const std::function<bool(const VarNode*)>& pred) {
  VarCollector c;
  c.Visit(s);
  for (const VarNode* v : c.vars) {
    if (pred(v)) return true;
  }
  return false;
}

int64_t KnownMultiple(const Expr& e) {
  if (const int64_t* c = ir::AsConstInt(e)) return *c == 0 ? (int64_t{1} << 30) : std::abs(*c);
  if (const auto* cast = e.as<ir::CastNode>()) return KnownMultiple(cast->value);
  const auto* op = e.as<ir::BinaryNode>();
  if (op == nullptr) return 1;
  switch (op->op) {
    case ir::BinaryOp::kAdd:
    case ir::BinaryOp::kSub:
      return std::gcd(KnownMultiple(op->a), KnownMultiple(op->b));
    case ir::BinaryOp::kMul:
      return std::min<int64_t>(KnownMultiple(op->a) * KnownMultiple(op->b), int64_t{1} << 30);
    case ir::BinaryOp::kFloorMod:
      // a - c·floor(a/c): a multiple of gcd(multiple of a, c).
      if (const int64_t* c = ir::AsConstInt(op->b); c != nullptr && *c > 0) {
        return std::gcd(KnownMultiple(op->a), *c);
      }
      return 1;
    case ir::BinaryOp::kFloorDiv:
      if (const int64_t* c = ir::AsConstInt(op->b); c != nullptr && *c > 0) {
        int64_t m = KnownMultiple(op->a);
        return m % *c == 0 ? m / *c : 1;
      }
      return 1;
    default:
      return 1;
  }
}

namespace {

void CollectSumTerms(const Expr& e, std::vector<Expr>* terms) {
  const auto* add = e.as<BinaryNode>();
  if (add != nullptr && add->op == BinaryOp::kAdd) {
    CollectSumTerms(add->a, terms);
    CollectSumTerms(add->b, terms);
    return;
  }
  terms->push_back(e);
}

}  // namespace

std::vector<Expr> SumTerms(const Expr& e) {
  std::vector<Expr> terms;
  CollectSumTerms(e, &terms);
  return terms;
}

}  // namespace tunefarm::ir
