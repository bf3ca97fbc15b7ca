#include "compiler/ir/ir_util.h"

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

}  // namespace tunefarm::ir
