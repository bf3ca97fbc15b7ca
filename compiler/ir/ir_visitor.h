// Read-only traversal of the IR. Override the Visit_ overloads you care about and call the
// base version to keep recursing into children.
#ifndef TUNEFARM_COMPILER_IR_IR_VISITOR_H_
#define TUNEFARM_COMPILER_IR_IR_VISITOR_H_

#include "compiler/ir/ir.h"

namespace tunefarm::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  // Dispatches on the node kind; undefined handles are ignored.
  virtual void Visit(const Expr& e);
  virtual void Visit(const Stmt& s);

 protected:
#define TF_DECLARE_VISIT(N) virtual void Visit_(const N##Node* op);
  TF_FOR_EACH_EXPR(TF_DECLARE_VISIT)
  TF_FOR_EACH_STMT(TF_DECLARE_VISIT)
#undef TF_DECLARE_VISIT
};

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_VISITOR_H_
