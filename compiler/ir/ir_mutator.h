// Rewriting traversal of the IR. Each Mutate_ overload returns the new node, or `self` itself
// when no child changed, so an untouched subtree costs no allocation.
#ifndef TUNEFARM_COMPILER_IR_IR_MUTATOR_H_
#define TUNEFARM_COMPILER_IR_IR_MUTATOR_H_

#include <vector>

#include "compiler/ir/ir.h"

namespace tunefarm::ir {

// Base of rewriting passes; the pass's class overrides the Mutate_ handlers it needs.
class IRMutator {
 public:
  virtual ~IRMutator() = default;
  // Dispatches on the node kind to the matching Mutate_; undefined handles come back undefined.
  virtual Expr Mutate(const Expr& e);
  virtual Stmt Mutate(const Stmt& s);

 protected:
  // One handler per node kind; `op` is the node and `self` its handle, to return unchanged.
  // The base versions mutate the children in field order and rebuild the node through its
  // Make() only when one changed. Bound variables (of For, Let, LetStmt, Reduce) and buffers,
  // shapes included, are kept as they are. A rebuilt Call takes the widest lanes of its new
  // arguments, so vectorizing an argument vectorizes the call.
#define TF_DECLARE_MUTATE(N) virtual Expr Mutate_(const N##Node* op, const Expr& self);
  TF_FOR_EACH_EXPR(TF_DECLARE_MUTATE)
#undef TF_DECLARE_MUTATE
#define TF_DECLARE_MUTATE(N) virtual Stmt Mutate_(const N##Node* op, const Stmt& self);
  TF_FOR_EACH_STMT(TF_DECLARE_MUTATE)
#undef TF_DECLARE_MUTATE

  // Mutates each element; sets *changed when any differs (never clears it, so one flag can
  // collect several calls).
  std::vector<Expr> MutateAll(const std::vector<Expr>& es, bool* changed);
};

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_MUTATOR_H_
