#include "compiler/ir/ir_visitor.h"

namespace tunefarm::ir {

void IRVisitor::Visit(const Expr& e) {
  if (!e.defined()) return;
  switch (e->kind) {
#define TF_DISPATCH(N)       \
  case ExprKind::k##N:       \
    Visit_(e.as<N##Node>()); \
    return;
    TF_FOR_EACH_EXPR(TF_DISPATCH)
#undef TF_DISPATCH
  }
}

void IRVisitor::Visit(const Stmt& s) {
  if (!s.defined()) return;
  switch (s->kind) {
#define TF_DISPATCH(N)       \
  case StmtKind::k##N:       \
    Visit_(s.as<N##Node>()); \
    return;
    TF_FOR_EACH_STMT(TF_DISPATCH)
#undef TF_DISPATCH
  }
}

void IRVisitor::Visit_(const IntImmNode*) {}
void IRVisitor::Visit_(const FloatImmNode*) {}
void IRVisitor::Visit_(const VarNode*) {}
void IRVisitor::Visit_(const BinaryNode* op) {
  Visit(op->a);
  Visit(op->b);
}
void IRVisitor::Visit_(const NotNode* op) { Visit(op->a); }
void IRVisitor::Visit_(const SelectNode* op) {
  Visit(op->cond);
  Visit(op->true_value);
  Visit(op->false_value);
}
void IRVisitor::Visit_(const CastNode* op) { Visit(op->value); }
void IRVisitor::Visit_(const CallNode* op) {
  for (const Expr& a : op->args) Visit(a);
}
void IRVisitor::Visit_(const LoadNode* op) {
  for (const Expr& i : op->indices) Visit(i);
}
void IRVisitor::Visit_(const RampNode* op) {
  Visit(op->base);
  Visit(op->stride);
}
void IRVisitor::Visit_(const BroadcastNode* op) { Visit(op->value); }
void IRVisitor::Visit_(const LetNode* op) {
  Visit(op->value);
  Visit(op->body);
}
void IRVisitor::Visit_(const ReduceNode* op) {
  for (const Range& r : op->ranges) {
    Visit(r.min);
    Visit(r.extent);
  }
  Visit(op->source);
}
void IRVisitor::Visit_(const LetStmtNode* op) {
  Visit(op->value);
  Visit(op->body);
}
void IRVisitor::Visit_(const ForNode* op) {
  Visit(op->min);
  Visit(op->extent);
  Visit(op->body);
}
void IRVisitor::Visit_(const IfThenElseNode* op) {
  Visit(op->cond);
  Visit(op->then_case);
  Visit(op->else_case);
}
void IRVisitor::Visit_(const AllocateNode* op) {
  for (const Expr& e : op->buffer->shape) Visit(e);
  Visit(op->body);
}
void IRVisitor::Visit_(const StoreNode* op) {
  Visit(op->value);
  for (const Expr& i : op->indices) Visit(i);
}
void IRVisitor::Visit_(const EvaluateNode* op) { Visit(op->value); }
void IRVisitor::Visit_(const SeqNode* op) {
  for (const Stmt& s : op->stmts) Visit(s);
}

}  // namespace tunefarm::ir
