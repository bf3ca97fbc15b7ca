#include "compiler/ir/ir_printer.h"

#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tunefarm::ir {
namespace {

class Printer {
 public:
  explicit Printer(std::ostream& os) : os_(os) {}

  void Print(const Expr& e) {
    if (!e.defined()) {
      os_ << "<undef>";
      return;
    }
    switch (e->kind) {
      case ExprKind::kIntImm: {
        const auto* op = e.as<IntImmNode>();
        if (op->type.is_bool()) {
          os_ << (op->value ? "true" : "false");
        } else {
          os_ << op->value;
          if (op->type.bits == 64) os_ << "i64";
        }
        return;
      }
      case ExprKind::kFloatImm: {
        const auto* op = e.as<FloatImmNode>();
        os_ << op->value << "f";
        if (op->type.bits != 32) os_ << op->type.bits;
        return;
      }
      case ExprKind::kVar:
        os_ << e.as<VarNode>()->name;
        return;
      case ExprKind::kBinary: {
        const auto* op = e.as<BinaryNode>();
        switch (op->op) {
          case BinaryOp::kFloorDiv:
          case BinaryOp::kFloorMod:
          case BinaryOp::kMin:
          case BinaryOp::kMax:
            os_ << BinaryOpName(op->op) << "(";
            Print(op->a);
            os_ << ", ";
            Print(op->b);
            os_ << ")";
            return;
          default:
            os_ << "(";
            Print(op->a);
            os_ << " " << BinaryOpName(op->op) << " ";
            Print(op->b);
            os_ << ")";
            return;
        }
      }
      case ExprKind::kNot:
        os_ << "!";
        Print(e.as<NotNode>()->a);
        return;
      case ExprKind::kSelect: {
        const auto* op = e.as<SelectNode>();
        os_ << "select(";
        Print(op->cond);
        os_ << ", ";
        Print(op->true_value);
        os_ << ", ";
        Print(op->false_value);
        os_ << ")";
        return;
      }
      case ExprKind::kCast:
        os_ << e.type().ToString() << "(";
        Print(e.as<CastNode>()->value);
        os_ << ")";
        return;
      case ExprKind::kCall: {
        const auto* op = e.as<CallNode>();
        os_ << op->name << "(";
        PrintList(op->args);
        os_ << ")";
        return;
      }
      case ExprKind::kLoad: {
        const auto* op = e.as<LoadNode>();
        os_ << op->buffer->name << "[";
        PrintList(op->indices);
        os_ << "]";
        return;
      }
      case ExprKind::kRamp: {
        const auto* op = e.as<RampNode>();
        os_ << "ramp(";
        Print(op->base);
        os_ << ", ";
        Print(op->stride);
        os_ << ", " << op->lanes << ")";
        return;
      }
      case ExprKind::kBroadcast: {
        const auto* op = e.as<BroadcastNode>();
        os_ << "x" << op->lanes << "(";
        Print(op->value);
        os_ << ")";
        return;
      }
      case ExprKind::kLet: {
        const auto* op = e.as<LetNode>();
        os_ << "(let " << op->var.name() << " = ";
        Print(op->value);
        os_ << " in ";
        Print(op->body);
        os_ << ")";
        return;
      }
      case ExprKind::kReduce: {
        const auto* op = e.as<ReduceNode>();
        os_ << ReduceOpName(op->op) << "(";
        Print(op->source);
        os_ << ", axis=[";
        for (size_t i = 0; i < op->axes.size(); ++i) {
          if (i) os_ << ", ";
          os_ << op->axes[i].name() << " in [";
          Print(op->ranges[i].min);
          os_ << ", +";
          Print(op->ranges[i].extent);
          os_ << ")";
        }
        os_ << "])";
        return;
      }
    }
  }

  void Print(const Stmt& s) {
    if (!s.defined()) return;
    switch (s->kind) {
      case StmtKind::kLetStmt: {
        const auto* op = s.as<LetStmtNode>();
        Indent();
        os_ << "let " << op->var.name() << " = ";
        Print(op->value);
        os_ << "\n";
        Print(op->body);
        return;
      }
      case StmtKind::kFor: {
        const auto* op = s.as<ForNode>();
        for (const auto& [name, value] : op->pragmas) {
          Indent();
          os_ << "// pragma " << name << " = " << value << "\n";
        }
        Indent();
        os_ << ForKindName(op->for_kind) << " (" << op->var.name() << ", ";
        Print(op->min);
        os_ << ", ";
        Print(op->extent);
        os_ << ")";
        if (!op->thread_tag.empty()) os_ << " " << op->thread_tag;
        os_ << " {\n";
        Nested(op->body);
        Indent();
        os_ << "}\n";
        return;
      }
      case StmtKind::kIfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        Indent();
        os_ << "if (";
        Print(op->cond);
        os_ << ") {\n";
        Nested(op->then_case);
        if (op->else_case.defined()) {
          Indent();
          os_ << "} else {\n";
          Nested(op->else_case);
        }
        Indent();
        os_ << "}\n";
        return;
      }
      case StmtKind::kAllocate: {
        const auto* op = s.as<AllocateNode>();
        Indent();
        os_ << "allocate " << op->buffer->name << "[" << op->buffer->dtype.ToString();
        for (const Expr& d : op->buffer->shape) {
          os_ << " * ";
          Print(d);
        }
        os_ << "] " << op->buffer->scope << "\n";
        Print(op->body);
        return;
      }
      case StmtKind::kStore: {
        const auto* op = s.as<StoreNode>();
        Indent();
        os_ << op->buffer->name << "[";
        PrintList(op->indices);
        os_ << "] = ";
        Print(op->value);
        os_ << "\n";
        return;
      }
      case StmtKind::kEvaluate:
        Indent();
        Print(s.as<EvaluateNode>()->value);
        os_ << "\n";
        return;
      case StmtKind::kSeq:
        for (const Stmt& c : s.as<SeqNode>()->stmts) Print(c);
        return;
    }
  }

 private:
  void PrintList(const std::vector<Expr>& es) {
    for (size_t i = 0; i < es.size(); ++i) {
      if (i) os_ << ", ";
      Print(es[i]);
    }
  }
  void Indent() {
    for (int i = 0; i < indent_; ++i) os_ << "  ";
  }
  void Nested(const Stmt& s) {
    ++indent_;
    Print(s);
    --indent_;
  }

  std::ostream& os_;
  int indent_ = 0;
};

}  // namespace

std::ostream& operator<<(std::ostream& os, const Expr& e) {
  Printer(os).Print(e);
  return os;
}

std::ostream& operator<<(std::ostream& os, const Stmt& s) {
  Printer(os).Print(s);
  return os;
}

std::string ToString(const Expr& e) {
  std::ostringstream os;
  os << e;
  return os.str();
}

std::string ToString(const Stmt& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

}  // namespace tunefarm::ir
