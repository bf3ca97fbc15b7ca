// Read-only traversal of the IR. Override the Visit_ overloads you care about and call the
// base version to keep recursing into children.
#ifndef TUNEFARM_COMPILER_IR_IR_VISITOR_H_
#define TUNEFARM_COMPILER_IR_IR_VISITOR_H_

#include "compiler/ir/ir.h"

namespace tunefarm::ir {

// Base of read-only passes (collectors, checkers, hashers). Holds no state of its own.
class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  // Dispatches on the node kind to the matching Visit_; undefined handles are ignored. Override
  // to see every node before its kind-specific handler (call the base to continue).
  virtual void Visit(const Expr& e);
  virtual void Visit(const Stmt& s);

 protected:
  // One handler per node kind. The base versions visit the node's child expressions and
  // statements in field order (leaves do nothing). The variable a For, Let, LetStmt or Reduce
  // binds is not visited, only its uses; Allocate visits its buffer's shape before the body,
  // while Load and Store do not visit their buffer's shape or strides.
#define TF_DECLARE_VISIT(N) virtual void Visit_(const N##Node* op);
  TF_FOR_EACH_EXPR(TF_DECLARE_VISIT)
  TF_FOR_EACH_STMT(TF_DECLARE_VISIT)
#undef TF_DECLARE_VISIT
};

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_VISITOR_H_
