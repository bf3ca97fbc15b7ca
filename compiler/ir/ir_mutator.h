// Rewriting traversal of the IR. Each Mutate_ overload returns the new node, or `self` itself
// when no child changed, so an untouched subtree costs no allocation.
#ifndef TUNEFARM_COMPILER_IR_IR_MUTATOR_H_
#define TUNEFARM_COMPILER_IR_IR_MUTATOR_H_

#include <vector>

#include "compiler/ir/ir.h"

namespace tunefarm::ir {

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  // Dispatches on the node kind; undefined handles come back undefined.
  virtual Expr Mutate(const Expr& e);
  virtual Stmt Mutate(const Stmt& s);

 protected:
#define TF_DECLARE_MUTATE(N) virtual Expr Mutate_(const N##Node* op, const Expr& self);
  TF_FOR_EACH_EXPR(TF_DECLARE_MUTATE)
#undef TF_DECLARE_MUTATE
#define TF_DECLARE_MUTATE(N) virtual Stmt Mutate_(const N##Node* op, const Stmt& self);
  TF_FOR_EACH_STMT(TF_DECLARE_MUTATE)
#undef TF_DECLARE_MUTATE

  // Mutates each element; sets *changed when any differs.
  std::vector<Expr> MutateAll(const std::vector<Expr>& es, bool* changed);
};

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_MUTATOR_H_
