#include "compiler/ir/ir.h"

#include <cmath>
#include <limits>

#include "absl/base/internal/raw_logging.h"

namespace tunefarm::ir {

Expr::Expr(int value) : node_(std::make_shared<IntImmNode>(DataType::Int(32), value)) {}
Expr::Expr(float value) : node_(std::make_shared<FloatImmNode>(DataType::Float(32), value)) {}

Var::Var(std::string name, DataType type)
    : Expr(std::make_shared<VarNode>(std::move(name), type)) {}

Var::Var(const Expr& e) : Expr(e) {
  ABSL_RAW_CHECK(e.as<VarNode>() != nullptr, "Var() wraps only a VarNode");
}

Buffer MakeBuffer(std::string name, DataType dtype, std::vector<Expr> shape, std::string scope,
                  std::vector<Expr> strides) {
  return std::make_shared<BufferNode>(std::move(name), dtype, std::move(shape), std::move(scope),
                                      std::move(strides));
}

Expr IntImmNode::Make(DataType t, int64_t v) { return Expr(std::make_shared<IntImmNode>(t, v)); }

Expr FloatImmNode::Make(DataType t, double v) { return Expr(std::make_shared<FloatImmNode>(t, v)); }

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kMod:
      return "%";
    case BinaryOp::kFloorDiv:
      return "floordiv";
    case BinaryOp::kFloorMod:
      return "floormod";
    case BinaryOp::kMin:
      return "min";
    case BinaryOp::kMax:
      return "max";
    case BinaryOp::kEQ:
      return "==";
    case BinaryOp::kNE:
      return "!=";
    case BinaryOp::kLT:
      return "<";
    case BinaryOp::kLE:
      return "<=";
    case BinaryOp::kGT:
      return ">";
    case BinaryOp::kGE:
      return ">=";
    case BinaryOp::kAnd:
      return "&&";
    case BinaryOp::kOr:
      return "||";
  }
  return "?";
}

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEQ || op == BinaryOp::kNE || op == BinaryOp::kLT || op == BinaryOp::kLE ||
         op == BinaryOp::kGT || op == BinaryOp::kGE;
}

bool IsLogical(BinaryOp op) { return op == BinaryOp::kAnd || op == BinaryOp::kOr; }

Expr BinaryNode::Make(BinaryOp op, Expr a, Expr b) {
  ABSL_RAW_CHECK(a.defined() && b.defined(), "Binary operand undefined");
  ABSL_RAW_CHECK(a.type() == b.type(), "Binary operands must have the same type");
  DataType t = IsComparison(op) ? DataType::Bool(a.type().lanes) : a.type();
  return Expr(std::make_shared<BinaryNode>(t, op, std::move(a), std::move(b)));
}

Expr NotNode::Make(Expr a) { return Expr(std::make_shared<NotNode>(std::move(a))); }

Expr SelectNode::Make(Expr cond, Expr t, Expr f) {
  ABSL_RAW_CHECK(t.type() == f.type(), "Select branches must have the same type");
  return Expr(std::make_shared<SelectNode>(std::move(cond), std::move(t), std::move(f)));
}

Expr CastNode::Make(DataType t, Expr v) {
  if (v.type() == t) return v;
  return Expr(std::make_shared<CastNode>(t, std::move(v)));
}

Expr CallNode::Make(DataType t, std::string name, std::vector<Expr> args) {
  return Expr(std::make_shared<CallNode>(t, std::move(name), std::move(args)));
}

Expr LoadNode::Make(Buffer buffer, std::vector<Expr> indices) {
  int lanes = 1;
  for (const Expr& i : indices) lanes = std::max(lanes, i.type().lanes);
  DataType t = buffer->dtype.with_lanes(lanes);
  return Expr(std::make_shared<LoadNode>(t, std::move(buffer), std::move(indices)));
}

Expr RampNode::Make(Expr base, Expr stride, int lanes) {
  return Expr(std::make_shared<RampNode>(std::move(base), std::move(stride), lanes));
}

Expr BroadcastNode::Make(Expr value, int lanes) {
  if (lanes == 1) return value;
  return Expr(std::make_shared<BroadcastNode>(std::move(value), lanes));
}

Expr LetNode::Make(Var var, Expr value, Expr body) {
  return Expr(std::make_shared<LetNode>(std::move(var), std::move(value), std::move(body)));
}

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kMin:
      return "min";
  }
  return "?";
}

Expr ReduceNode::Make(ReduceOp op, Expr source, std::vector<Var> axes, std::vector<Range> ranges) {
  return Expr(
      std::make_shared<ReduceNode>(op, std::move(source), std::move(axes), std::move(ranges)));
}

Expr MakeConst(DataType t, double value) {
  if (t.is_float()) return FloatImmNode::Make(t, value);
  return IntImmNode::Make(t, static_cast<int64_t>(value));
}

Expr ReduceNode::Identity() const {
  switch (op) {
    case ReduceOp::kSum:
      return MakeConst(type, 0);
    case ReduceOp::kMax:
      if (type.is_float()) return MakeConst(type, -std::numeric_limits<double>::infinity());
      return IntImmNode::Make(type, type.is_uint() ? 0 : -(int64_t{1} << (type.bits - 1)));
    case ReduceOp::kMin:
      if (type.is_float()) return MakeConst(type, std::numeric_limits<double>::infinity());
      return IntImmNode::Make(type, type.is_uint() ? (int64_t{1} << type.bits) - 1
                                                   : (int64_t{1} << (type.bits - 1)) - 1);
  }
  return Expr();
}

Expr ReduceNode::Combine(Expr acc, Expr value) const {
  switch (op) {
    case ReduceOp::kSum:
      return BinaryNode::Make(BinaryOp::kAdd, std::move(acc), std::move(value));
    case ReduceOp::kMax:
      return BinaryNode::Make(BinaryOp::kMax, std::move(acc), std::move(value));
    case ReduceOp::kMin:
      return BinaryNode::Make(BinaryOp::kMin, std::move(acc), std::move(value));
  }
  return Expr();
}

Stmt LetStmtNode::Make(Var var, Expr value, Stmt body) {
  return Stmt(std::make_shared<LetStmtNode>(std::move(var), std::move(value), std::move(body)));
}

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "for";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unrolled";
    case ForKind::kThreadBinding:
      return "bound";
  }
  return "?";
}

Stmt ForNode::Make(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag,
                   std::map<std::string, int64_t> pragmas) {
  return Stmt(std::make_shared<ForNode>(std::move(var), std::move(min), std::move(extent), kind,
                                        std::move(body), std::move(thread_tag),
                                        std::move(pragmas)));
}

Stmt IfThenElseNode::Make(Expr cond, Stmt then_case, Stmt else_case) {
  return Stmt(std::make_shared<IfThenElseNode>(std::move(cond), std::move(then_case),
                                               std::move(else_case)));
}

Stmt AllocateNode::Make(Buffer buffer, Stmt body) {
  return Stmt(std::make_shared<AllocateNode>(std::move(buffer), std::move(body)));
}

Stmt StoreNode::Make(Buffer buffer, Expr value, std::vector<Expr> indices) {
  return Stmt(std::make_shared<StoreNode>(std::move(buffer), std::move(value), std::move(indices)));
}

Stmt EvaluateNode::Make(Expr value) {
  return Stmt(std::make_shared<EvaluateNode>(std::move(value)));
}

bool IsNoOp(const Stmt& s) {
  if (!s.defined()) return true;
  const auto* e = s.as<EvaluateNode>();
  return e != nullptr && (e->value.as<IntImmNode>() != nullptr);
}

Stmt SeqNode::Make(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (IsNoOp(s)) continue;
    if (const auto* seq = s.as<SeqNode>()) {
      flat.insert(flat.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.empty()) return EvaluateNode::Make(0);
  if (flat.size() == 1) return flat[0];
  return Stmt(std::make_shared<SeqNode>(std::move(flat)));
}

const int64_t* AsConstInt(const Expr& e) {
  const auto* imm = e.as<IntImmNode>();
  return imm == nullptr ? nullptr : &imm->value;
}

}  // namespace tunefarm::ir
