#include "compiler/codegen/codegen_c.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "compiler/lower/inject_prefetch.h"
#include "compiler/lower/storage_flatten.h"

namespace tunefarm::codegen {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Stmt;

constexpr int64_t kMaxLocalArrayBytes = 64 * 1024;

constexpr const char* kPrelude = R"(#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define TF_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TF_MAX(a, b) ((a) > (b) ? (a) : (b))
static inline int64_t tf_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t tf_floormod(int64_t a, int64_t b) { return a - tf_floordiv(a, b) * b; }
)";

class CPrinter {
 public:
  absl::StatusOr<std::string> Print(const lower::LoweredFunc& f) {
    os_ << kPrelude << "\n";
    os_ << "int32_t " << f.name << "(";
    for (size_t i = 0; i < f.args.size(); ++i) {
      const ir::BufferNode* b = f.args[i].buffer.get();
      os_ << (i ? ", " : "") << CType(b->dtype) << "* restrict " << BufferName(b);
    }
    if (f.args.empty()) os_ << "void";
    os_ << ") {\n";
    indent_ = 1;
    PrintStmt(f.body);
    Line() << "return 0;\n";
    os_ << "}\n";
    if (!status_.ok()) return status_;
    return os_.str();
  }

 private:
  std::ostream& Line() {
    for (int i = 0; i < indent_; ++i) os_ << "  ";
    return os_;
  }

  void Fail(const std::string& msg) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("codegen_c: ", msg));
  }

  std::string CType(DataType t) {
    t = t.element_of();
    if (t.is_float()) {
      if (t.bits == 32) return "float";
      if (t.bits == 64) return "double";
      if (t.bits == 16) return "_Float16";
    } else if (t.is_bool()) {
      return "uint8_t";
    } else if ((t.is_int() || t.is_uint()) &&
               (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)) {
      return absl::StrCat(t.is_uint() ? "uint" : "int", t.bits, "_t");
    }
    Fail(absl::StrCat("no C type for ", t.ToString()));
    return "void";
  }

  // A C identifier for `name`, distinct from every other node's.
  std::string Unique(const std::string& name) {
    std::string base;
    for (char c : name) base += absl::ascii_isalnum(c) || c == '_' ? c : '_';
    if (base.empty() || absl::ascii_isdigit(base[0])) base = "v" + base;
    std::string out = base;
    for (int n = 1; !used_.insert(out).second; ++n) out = absl::StrCat(base, "_", n);
    return out;
  }
  const std::string& VarName(const ir::VarNode* v) {
    auto it = var_names_.find(v);
    if (it == var_names_.end()) it = var_names_.emplace(v, Unique(v->name)).first;
    return it->second;
  }
  const std::string& BufferName(const ir::BufferNode* b) {
    auto it = buf_names_.find(b);
    if (it == buf_names_.end()) it = buf_names_.emplace(b, Unique(b->name)).first;
    return it->second;
  }

  static std::string FloatLiteral(double v, int bits) {
    const char* suffix = bits == 32 ? "f" : "";
    if (std::isnan(v)) return "NAN";
    if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    if (bits == 16) return absl::StrCat("((_Float16)", s, "f)");
    return absl::StrCat(v < 0 ? "(" : "", s, suffix, v < 0 ? ")" : "");
  }

  // The expression, scalarized at lane `lane` ("" for a scalar context).
  std::string E(const Expr& e, const std::string& lane) {
    switch (e->kind) {
      case ir::ExprKind::kIntImm: {
        const auto* op = e.as<ir::IntImmNode>();
        if (op->type.bits == 64) return absl::StrCat("INT64_C(", op->value, ")");
        return op->value < 0 ? absl::StrCat("(", op->value, ")") : absl::StrCat(op->value);
      }
      case ir::ExprKind::kFloatImm: {
        const auto* op = e.as<ir::FloatImmNode>();
        return FloatLiteral(op->value, op->type.bits);
      }
      case ir::ExprKind::kVar:
        return VarName(e.as<ir::VarNode>());
      case ir::ExprKind::kBinary:
        return Binary(e.as<ir::BinaryNode>(), lane);
      case ir::ExprKind::kNot:
        return absl::StrCat("(!", E(e.as<ir::NotNode>()->a, lane), ")");
      case ir::ExprKind::kSelect: {
        const auto* op = e.as<ir::SelectNode>();
        return absl::StrCat("(", E(op->cond, lane), " ? ", E(op->true_value, lane), " : ",
                            E(op->false_value, lane), ")");
      }
      case ir::ExprKind::kCast: {
        const auto* op = e.as<ir::CastNode>();
        return absl::StrCat("((", CType(op->type), ")", E(op->value, lane), ")");
      }
      case ir::ExprKind::kCall:
        return Call(e.as<ir::CallNode>(), lane);
      case ir::ExprKind::kLoad: {
        const auto* op = e.as<ir::LoadNode>();
        if (op->indices.size() != 1) Fail("load of an unflattened buffer");
        return absl::StrCat(BufferName(op->buffer.get()), "[", E(op->indices[0], lane), "]");
      }
      case ir::ExprKind::kRamp: {
        const auto* op = e.as<ir::RampNode>();
        if (lane.empty()) Fail("vector expression in a scalar context");
        const int64_t* stride = ir::AsConstInt(op->stride);
        if (stride != nullptr && *stride == 1)
          return absl::StrCat("(", E(op->base, lane), " + ", lane, ")");
        return absl::StrCat("(", E(op->base, lane), " + ", lane, " * ", E(op->stride, lane), ")");
      }
      case ir::ExprKind::kBroadcast:
        return E(e.as<ir::BroadcastNode>()->value, lane);
      case ir::ExprKind::kLet: {
        // A GCC statement expression keeps the binding local.
        const auto* op = e.as<ir::LetNode>();
        return absl::StrCat("({ const ", CType(op->value.type()), " ", VarName(op->var.get()),
                            " = ", E(op->value, lane), "; ", E(op->body, lane), "; })");
      }
      case ir::ExprKind::kReduce:
        Fail("an unlowered reduction reached the C printer");
        return "0";
    }
    return "0";
  }

  std::string Binary(const ir::BinaryNode* op, const std::string& lane) {
    std::string a = E(op->a, lane), b = E(op->b, lane);
    const bool integral = op->a.type().is_integral();
    switch (op->op) {
      case ir::BinaryOp::kFloorDiv:
        if (integral) {
          return absl::StrCat("((", CType(op->type), ")tf_floordiv(", a, ", ", b, "))");
        }
        return absl::StrCat("floor(", a, " / ", b, ")");
      case ir::BinaryOp::kFloorMod:
        if (integral) {
          return absl::StrCat("((", CType(op->type), ")tf_floormod(", a, ", ", b, "))");
        }
        return absl::StrCat("(", a, " - floor(", a, " / ", b, ") * ", b, ")");
      case ir::BinaryOp::kMod:
        if (!integral) return absl::StrCat("fmod(", a, ", ", b, ")");
        return absl::StrCat("(", a, " % ", b, ")");
      case ir::BinaryOp::kMin:
        return absl::StrCat("TF_MIN(", a, ", ", b, ")");
      case ir::BinaryOp::kMax:
        return absl::StrCat("TF_MAX(", a, ", ", b, ")");
      default:
        break;
    }
    static const absl::flat_hash_map<ir::BinaryOp, const char*> kInfix = {
        {ir::BinaryOp::kAdd, "+"}, {ir::BinaryOp::kSub, "-"},  {ir::BinaryOp::kMul, "*"},
        {ir::BinaryOp::kDiv, "/"}, {ir::BinaryOp::kEQ, "=="},  {ir::BinaryOp::kNE, "!="},
        {ir::BinaryOp::kLT, "<"},  {ir::BinaryOp::kLE, "<="},  {ir::BinaryOp::kGT, ">"},
        {ir::BinaryOp::kGE, ">="}, {ir::BinaryOp::kAnd, "&&"}, {ir::BinaryOp::kOr, "||"}};
    return absl::StrCat("(", a, " ", kInfix.at(op->op), " ", b, ")");
  }

  std::string Call(const ir::CallNode* op, const std::string& lane) {
    if (op->horizontal() && op->args.size() == 1) {
      // A horizontal reduction: its vector argument at each lane, combined.
      const std::string name = op->name.substr(std::string("vector_reduce_").size());
      std::string out;
      for (int l = 0; l < op->args[0].type().lanes; ++l) {
        const std::string v = E(op->args[0], std::to_string(l));
        if (l == 0) {
          out = v;
        } else if (name == "add") {
          out = absl::StrCat("(", out, " + ", v, ")");
        } else {
          out = absl::StrCat(name == "max" ? "TF_MAX(" : "TF_MIN(", out, ", ", v, ")");
        }
      }
      return out;
    }
    if (op->name == lower::kPrefetchIntrinsic) {
      const auto* ld = op->args.size() == 1 ? op->args[0].as<ir::LoadNode>() : nullptr;
      if (ld == nullptr) return "0";
      return absl::StrCat("__builtin_prefetch(&", E(op->args[0], lane), ", 0, 3)");
    }
    std::vector<std::string> args;
    for (const Expr& a : op->args) args.push_back(E(a, lane));
    if (op->name == "likely") return args[0];
    // float32 uses the f-suffixed libm functions; other float types go through double.
    const bool f32 = op->type.element_of() == DataType::Float(32);
    const std::string sfx = f32 ? "f" : "";
    auto wrap = [&](const std::string& call) {
      return f32 ? call : absl::StrCat("((", CType(op->type), ")", call, ")");
    };
    if (op->name == "sigmoid") {
      std::string one = f32 ? "1.0f" : "1.0";
      return wrap(absl::StrCat("(", one, " / (", one, " + exp", sfx, "(-(", args[0], "))))"));
    }
    if (op->name == "pow") return wrap(absl::StrCat("pow", sfx, "(", args[0], ", ", args[1], ")"));
    if (op->name == "recip") return absl::StrCat("(", f32 ? "1.0f" : "1.0", " / (", args[0], "))");
    static const absl::flat_hash_set<std::string> kUnary = {"exp", "log", "sqrt", "tanh", "fabs"};
    if (kUnary.contains(op->name) && args.size() == 1) {
      return wrap(absl::StrCat(op->name, sfx, "(", args[0], ")"));
    }
    Fail(absl::StrCat("unknown intrinsic '", op->name, "'"));
    return "0";
  }

  void PrintStmt(const Stmt& s) {
    if (!s.defined() || !status_.ok()) return;
    switch (s->kind) {
      case ir::StmtKind::kLetStmt: {
        const auto* op = s.as<ir::LetStmtNode>();
        Line() << "{\n";
        ++indent_;
        Line() << "const " << CType(op->value.type()) << " " << VarName(op->var.get()) << " = "
               << E(op->value, "") << ";\n";
        PrintStmt(op->body);
        --indent_;
        Line() << "}\n";
        return;
      }
      case ir::StmtKind::kFor:
        return PrintFor(s.as<ir::ForNode>());
      case ir::StmtKind::kIfThenElse: {
        const auto* op = s.as<ir::IfThenElseNode>();
        Line() << "if (" << E(op->cond, "") << ") {\n";
        ++indent_;
        PrintStmt(op->then_case);
        --indent_;
        if (op->else_case.defined()) {
          Line() << "} else {\n";
          ++indent_;
          PrintStmt(op->else_case);
          --indent_;
        }
        Line() << "}\n";
        return;
      }
      case ir::StmtKind::kAllocate:
        return PrintAllocate(s.as<ir::AllocateNode>());
      case ir::StmtKind::kStore: {
        const auto* op = s.as<ir::StoreNode>();
        if (op->indices.size() != 1) Fail("store to an unflattened buffer");
        const int lanes = std::max(op->value.type().lanes, op->indices[0].type().lanes);
        if (lanes == 1) {
          Line() << BufferName(op->buffer.get()) << "[" << E(op->indices[0], "")
                 << "] = " << E(op->value, "") << ";\n";
          return;
        }
        // A vector store: every lane's value, then the store, lane by lane (the lanes of a
        // vectorized loop touch distinct elements).
        Line() << "for (int32_t tf_lane = 0; tf_lane < " << lanes << "; ++tf_lane) {\n";
        ++indent_;
        Line() << BufferName(op->buffer.get()) << "[" << E(op->indices[0], "tf_lane")
               << "] = " << E(op->value, "tf_lane") << ";\n";
        --indent_;
        Line() << "}\n";
        return;
      }
      case ir::StmtKind::kEvaluate: {
        const auto* op = s.as<ir::EvaluateNode>();
        if (ir::AsConstInt(op->value) == nullptr) Line() << "(void)" << E(op->value, "") << ";\n";
        return;
      }
      case ir::StmtKind::kSeq:
        for (const Stmt& c : s.as<ir::SeqNode>()->stmts) PrintStmt(c);
        return;
    }
  }

  void PrintFor(const ir::ForNode* op) {
    if (op->for_kind == ir::ForKind::kThreadBinding) {
      Fail(absl::StrCat("loop '", op->var.name(), "' is bound to ", op->thread_tag,
                        "; the C printer is for CPU kernels"));
      return;
    }
    for (const auto& [key, value] : op->pragmas)
      Line() << "// pragma " << key << " = " << value << "\n";
    if (op->for_kind == ir::ForKind::kParallel) Line() << "#pragma omp parallel for\n";
    const std::string v = VarName(op->var.get());
    const std::string type = CType(op->var.type());
    const int64_t* mn = ir::AsConstInt(op->min);
    std::string end = mn != nullptr && *mn == 0
                          ? E(op->extent, "")
                          : absl::StrCat(E(op->min, ""), " + ", E(op->extent, ""));
    Line() << "for (" << type << " " << v << " = " << E(op->min, "") << "; " << v << " < " << end
           << "; ++" << v << ") {\n";
    ++indent_;
    PrintStmt(op->body);
    --indent_;
    Line() << "}\n";
  }

  void PrintAllocate(const ir::AllocateNode* op) {
    const ir::BufferNode& buf = *op->buffer;
    std::optional<int64_t> count = lower::AllocationElements(buf);
    if (!count) {
      Fail(absl::StrCat("allocation '", buf.name, "' has a non-constant size"));
      return;
    }
    const int64_t elems = *count;
    const std::string name = BufferName(&buf);
    const std::string type = CType(buf.dtype);
    Line() << "{\n";
    ++indent_;
    const bool heap = elems * buf.dtype.bytes() > kMaxLocalArrayBytes;
    if (heap) {
      Line() << type << "* restrict " << name << " = (" << type << "*)malloc(" << elems
             << " * sizeof(" << type << "));\n";
      Line() << "if (" << name << " == NULL) return 5;  // TF_KERNEL_OUT_OF_MEMORY\n";
    } else {
      Line() << type << " " << name << "[" << elems << "] __attribute__((aligned(64)));\n";
    }
    PrintStmt(op->body);
    if (heap) Line() << "free(" << name << ");\n";
    --indent_;
    Line() << "}\n";
  }

  std::ostringstream os_;
  int indent_ = 0;
  absl::Status status_;
  // Names the printed code uses for itself, and C keywords and types a tensor may be named.
  absl::flat_hash_set<std::string> used_ = {
      "tf_lane",  "tf_floordiv", "tf_floormod", "auto",     "break",  "case",     "char",
      "const",    "continue",    "default",     "do",       "double", "else",     "enum",
      "extern",   "float",       "for",         "goto",     "if",     "int",      "long",
      "register", "return",      "short",       "signed",   "sizeof", "static",   "struct",
      "switch",   "typedef",     "union",       "unsigned", "void",   "volatile", "while",
      "restrict", "inline",      "malloc",      "free",     "exp",    "log",      "sqrt",
      "tanh",     "fabs",        "pow",         "floor",    "fmod",   "NULL"};
  absl::flat_hash_map<const ir::VarNode*, std::string> var_names_;
  absl::flat_hash_map<const ir::BufferNode*, std::string> buf_names_;
};

}  // namespace

absl::StatusOr<std::string> PrintC(const lower::LoweredFunc& func) {
  return CPrinter().Print(func);
}

}  // namespace tunefarm::codegen
