// The tensor-program IR: immutable, reference-counted expression and statement nodes.
//
// Nodes have public const-by-convention fields, a kind tag and a static Make() factory; they
// are held through the `Expr` and `Stmt` handles. A rewrite builds new nodes and never edits a
// shared one. The lists TF_FOR_EACH_EXPR / TF_FOR_EACH_STMT name every node kind once; the
// visitor, mutator, equality and printer are generated from them, so a new node kind that a
// pass forgets to handle fails to compile instead of being silently skipped.
#ifndef TUNEFARM_COMPILER_IR_IR_H_
#define TUNEFARM_COMPILER_IR_IR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/type.h"

namespace tunefarm::ir {

#define TF_FOR_EACH_EXPR(X) \
  X(IntImm)                 \
  X(FloatImm)               \
  X(Var)                    \
  X(Binary)                 \
  X(Not)                    \
  X(Select)                 \
  X(Cast)                   \
  X(Call)                   \
  X(Load)                   \
  X(Ramp)                   \
  X(Broadcast)              \
  X(Let)                    \
  X(Reduce)

#define TF_FOR_EACH_STMT(X) \
  X(LetStmt)                \
  X(For)                    \
  X(IfThenElse)             \
  X(Allocate)               \
  X(Store)                  \
  X(Evaluate)               \
  X(Seq)

// The concrete node type behind an Expr or a Stmt (one per node struct below; `as<T>()` and
// the visitors dispatch on it).
enum class ExprKind {
#define TF_DECLARE_KIND(N) k##N,
  TF_FOR_EACH_EXPR(TF_DECLARE_KIND)
};
enum class StmtKind { TF_FOR_EACH_STMT(TF_DECLARE_KIND) };
#undef TF_DECLARE_KIND

// Base of every expression node.
struct ExprNode {
  ExprNode(ExprKind k, DataType t) : kind(k), type(t) {}
  virtual ~ExprNode() = default;
  const ExprKind kind;
  // The value's type, lanes included (a vector expression has lanes > 1).
  const DataType type;
};

// Base of every statement node.
struct StmtNode {
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
  const StmtKind kind;
};

struct VarNode;

// A handle to an immutable expression. Null when default-constructed.
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  // An int32 constant.
  Expr(int value);  // NOLINT(google-explicit-constructor): literals read naturally in indices.
  // A float32 constant.
  Expr(float value);  // NOLINT(google-explicit-constructor)

  bool defined() const { return node_ != nullptr; }
  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  DataType type() const { return node_->type; }
  // The node as T when its kind is T::kKind, else null. Not of a temporary handle, whose node
  // may go with it (name the handle first).
  template <typename T>
  const T* as() const& {
    return node_ != nullptr && node_->kind == T::kKind ? static_cast<const T*>(node_.get())
                                                       : nullptr;
  }
  template <typename T>
  const T* as() && = delete;
  // True when both handles point at the same node (not structural equality).
  bool same_as(const Expr& o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

// A handle to an immutable statement. Null when default-constructed.
class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}
  bool defined() const { return node_ != nullptr; }
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  // The node as T when its kind is T::kKind, else null. Not of a temporary handle, whose node
  // may go with it (name the handle first).
  template <typename T>
  const T* as() const& {
    return node_ != nullptr && node_->kind == T::kKind ? static_cast<const T*>(node_.get())
                                                       : nullptr;
  }
  template <typename T>
  const T* as() && = delete;
  // True when both handles point at the same node (not structural equality).
  bool same_as(const Stmt& o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<const StmtNode> node_;
};

// A variable: identity is the node, the name is for printing only.
struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kVar;
  VarNode(std::string n, DataType t) : ExprNode(kKind, t), name(std::move(n)) {}
  const std::string name;
};

// A handle to a variable; usable wherever an Expr is.
class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::string name, DataType type = DataType::Int(32));
  // Wraps an expression known to be a VarNode.
  explicit Var(const Expr& e);
  const VarNode* get() const { return static_cast<const VarNode*>(Expr::get()); }
  const VarNode* operator->() const { return get(); }
  const std::string& name() const { return get()->name; }
};

// A half-open interval [min, min + extent).
struct Range {
  Expr min;
  Expr extent;
};

// A multi-dimensional array in some storage scope. Identity is the node. Tensor-expression
// operations derive from it: the node that computes a tensor is also the storage it writes.
// A named, typed region of memory that loads and stores address. Immutable once made, like
// every IR node: passes that need another layout make another buffer.
struct BufferNode {
  BufferNode(std::string n, DataType t, std::vector<Expr> s, std::string sc,
             std::vector<Expr> st = {})
      : name(std::move(n)),
        dtype(t),
        shape(std::move(s)),
        scope(std::move(sc)),
        strides(std::move(st)) {}
  virtual ~BufferNode() = default;
  const std::string name;
  const DataType dtype;
  // Extent of each dimension, outermost first.
  const std::vector<Expr> shape;
  // "global" (kernel arguments and heap temporaries), "local" (registers/stack), "shared" (GPU).
  const std::string scope;
  // Row strides in elements; empty means compact row-major. Given by storage_align.
  const std::vector<Expr> strides;
};
using Buffer = std::shared_ptr<const BufferNode>;

// Makes a buffer; `scope` defaults to global memory, `strides` to compact row-major.
Buffer MakeBuffer(std::string name, DataType dtype, std::vector<Expr> shape,
                  std::string scope = "global", std::vector<Expr> strides = {});

// ---------------------------------------------------------------------------------------------
// Expressions.

// An integer constant of type `type` (any integer width, or bool).
struct IntImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kIntImm;
  IntImmNode(DataType t, int64_t v) : ExprNode(kKind, t), value(v) {}
  static Expr Make(DataType t, int64_t v);
  const int64_t value;
};

// A floating-point constant of type `type` (float16/32/64), kept as a double.
struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kFloatImm;
  FloatImmNode(DataType t, double v) : ExprNode(kKind, t), value(v) {}
  static Expr Make(DataType t, double v);
  const double value;
};

// Every two-operand operator. Comparisons and logic produce bool; the others the operand type.
enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kDiv,  // Truncating for integers (C semantics), true division for floats.
  kMod,  // Truncating remainder.
  kFloorDiv,
  kFloorMod,
  kMin,
  kMax,
  kEQ,
  kNE,
  kLT,
  kLE,
  kGT,
  kGE,
  kAnd,
  kOr,
};
// The operator's spelling for printing ("+", "floordiv", "<=", ...).
const char* BinaryOpName(BinaryOp op);
// kEQ ... kGE (IsComparison) and kAnd, kOr (IsLogical): their result is bool.
bool IsComparison(BinaryOp op);
bool IsLogical(BinaryOp op);

// a op b.
struct BinaryNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kBinary;
  BinaryNode(DataType t, BinaryOp o, Expr x, Expr y)
      : ExprNode(kKind, t), op(o), a(std::move(x)), b(std::move(y)) {}
  // Operands must have the same type (checked); the result type follows from `op`.
  static Expr Make(BinaryOp op, Expr a, Expr b);
  const BinaryOp op;
  const Expr a, b;
};

// Logical negation of a bool.
struct NotNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kNot;
  explicit NotNode(Expr x) : ExprNode(kKind, x.type()), a(std::move(x)) {}
  static Expr Make(Expr a);
  const Expr a;
};

// cond ? t : f, evaluating both sides.
struct SelectNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kSelect;
  SelectNode(Expr c, Expr t, Expr f)
      : ExprNode(kKind, t.type()),
        cond(std::move(c)),
        true_value(std::move(t)),
        false_value(std::move(f)) {}
  static Expr Make(Expr cond, Expr t, Expr f);
  const Expr cond, true_value, false_value;
};

// `value` converted to `type` (C conversion rules; lanes must match).
struct CastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kCast;
  CastNode(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  static Expr Make(DataType t, Expr v);
  const Expr value;
};

// A pure intrinsic: "exp", "log", "sqrt", "tanh", "fabs", "pow", "sigmoid", "recip", "likely"
// (marks a condition the loop partitioner may split on; value is the argument), and the horizontal
// reductions "vector_reduce_add", "vector_reduce_max", "vector_reduce_min" (one lane: their
// vector argument's lanes combined; made by the vectorizer for a vectorized reduce axis).
struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kCall;
  CallNode(DataType t, std::string n, std::vector<Expr> as)
      : ExprNode(kKind, t), name(std::move(n)), args(std::move(as)) {}
  static Expr Make(DataType t, std::string name, std::vector<Expr> args);
  // Whether this call combines its vector argument's lanes into one value.
  bool horizontal() const { return name.rfind("vector_reduce_", 0) == 0; }
  const std::string name;
  const std::vector<Expr> args;
};

// buffer[indices...]. Multi-dimensional until storage flattening, then one flat index. A Ramp
// index makes a vector load of ramp.lanes elements.
struct LoadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kLoad;
  LoadNode(DataType t, Buffer b, std::vector<Expr> idx)
      : ExprNode(kKind, t), buffer(std::move(b)), indices(std::move(idx)) {}
  static Expr Make(Buffer buffer, std::vector<Expr> indices);
  const Buffer buffer;
  const std::vector<Expr> indices;
};

// The vector [base, base + stride, ..., base + (lanes-1) * stride].
struct RampNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kRamp;
  RampNode(Expr b, Expr s, int l)
      : ExprNode(kKind, b.type().with_lanes(l)),
        base(std::move(b)),
        stride(std::move(s)),
        lanes(l) {}
  static Expr Make(Expr base, Expr stride, int lanes);
  const Expr base, stride;
  const int lanes;
};

// A scalar repeated `lanes` times.
struct BroadcastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kBroadcast;
  BroadcastNode(Expr v, int l)
      : ExprNode(kKind, v.type().with_lanes(l)), value(std::move(v)), lanes(l) {}
  static Expr Make(Expr value, int lanes);
  const Expr value;
  const int lanes;
};

// let var = value in body.
struct LetNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kLet;
  LetNode(Var v, Expr val, Expr b)
      : ExprNode(kKind, b.type()), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  static Expr Make(Var var, Expr value, Expr body);
  const Var var;
  const Expr value, body;
};

// The combiner of a reduction.
enum class ReduceOp { kSum, kMax, kMin };
// "sum", "max", "min".
const char* ReduceOpName(ReduceOp op);

// A commutative reduction of `source` over the reduce axes. Only appears as the whole body of
// a compute stage; lowering turns it into an init and an update statement.
struct ReduceNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kReduce;
  ReduceNode(ReduceOp o, Expr s, std::vector<Var> ax, std::vector<Range> r)
      : ExprNode(kKind, s.type()),
        op(o),
        source(std::move(s)),
        axes(std::move(ax)),
        ranges(std::move(r)) {}
  static Expr Make(ReduceOp op, Expr source, std::vector<Var> axes, std::vector<Range> ranges);
  // The identity element of `op` for `type`: 0 for sum, lowest value for max, highest for min.
  Expr Identity() const;
  // Combines an accumulated value with a new one.
  Expr Combine(Expr acc, Expr value) const;
  const ReduceOp op;
  const Expr source;
  const std::vector<Var> axes;
  const std::vector<Range> ranges;
};

// ---------------------------------------------------------------------------------------------
// Statements.

// let var = value in body, for a statement body.
struct LetStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kLetStmt;
  LetStmtNode(Var v, Expr val, Stmt b)
      : StmtNode(kKind), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  static Stmt Make(Var var, Expr value, Stmt body);
  const Var var;
  const Expr value;
  const Stmt body;
};

// How a loop runs.
enum class ForKind {
  kSerial,
  kParallel,       // Iterations split across CPU threads.
  kVectorized,     // Replaced by vector operations; constant extent required.
  kUnrolled,       // Replicated; constant extent required.
  kThreadBinding,  // Bound to a GPU block/thread index (see thread_tag).
};
// How the printer shows the loop: "for", "parallel", "vectorized", "unrolled", "bound".
const char* ForKindName(ForKind kind);

// for (var = min; var < min + extent; ++var) body, run as `for_kind` says.
struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kFor;
  ForNode(Var v, Expr mn, Expr ext, ForKind k, Stmt b, std::string tag,
          std::map<std::string, int64_t> p)
      : StmtNode(kKind),
        var(std::move(v)),
        min(std::move(mn)),
        extent(std::move(ext)),
        for_kind(k),
        body(std::move(b)),
        thread_tag(std::move(tag)),
        pragmas(std::move(p)) {}
  static Stmt Make(Var var, Expr min, Expr extent, ForKind kind, Stmt body,
                   std::string thread_tag = "", std::map<std::string, int64_t> pragmas = {});
  const Var var;
  const Expr min, extent;
  const ForKind for_kind;
  const Stmt body;
  // "blockIdx.x" ... "threadIdx.z" when for_kind is kThreadBinding.
  const std::string thread_tag;
  // Free-form hints, e.g. {"auto_unroll_max_step", 16}.
  const std::map<std::string, int64_t> pragmas;
};

// if (cond) then_case else else_case.
struct IfThenElseNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kIfThenElse;
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  static Stmt Make(Expr cond, Stmt then_case, Stmt else_case = Stmt());
  const Expr cond;
  const Stmt then_case;
  const Stmt else_case;  // May be undefined.
};

// Storage for `buffer` (its shape gives the size) that lives for the duration of `body`.
struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kAllocate;
  AllocateNode(Buffer b, Stmt s) : StmtNode(kKind), buffer(std::move(b)), body(std::move(s)) {}
  static Stmt Make(Buffer buffer, Stmt body);
  const Buffer buffer;
  const Stmt body;
};

// buffer[indices...] = value. Like LoadNode: multi-dimensional until storage flattening, and a
// Ramp index stores a vector.
struct StoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kStore;
  StoreNode(Buffer b, Expr v, std::vector<Expr> idx)
      : StmtNode(kKind), buffer(std::move(b)), value(std::move(v)), indices(std::move(idx)) {}
  static Stmt Make(Buffer buffer, Expr value, std::vector<Expr> indices);
  const Buffer buffer;
  const Expr value;
  const std::vector<Expr> indices;
};

// Evaluates an expression for its effect (used for no-ops: Evaluate(0)).
struct EvaluateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kEvaluate;
  explicit EvaluateNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  static Stmt Make(Expr value);
  const Expr value;
};

// Statements run in order.
struct SeqNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kSeq;
  explicit SeqNode(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
  // Flattens nested sequences, drops undefined and no-op statements; a single statement is
  // returned as itself.
  static Stmt Make(std::vector<Stmt> stmts);
  const std::vector<Stmt> stmts;
};

// True for Evaluate of a constant: a statement that does nothing.
bool IsNoOp(const Stmt& s);

// Integer constant value of `e` if it is an IntImm. The pointer is into `e`'s node: `e` must
// outlive it, so a temporary (the result of Simplify, say) is refused at compile time; name it
// first.
const int64_t* AsConstInt(const Expr& e);
const int64_t* AsConstInt(Expr&& e) = delete;

// Builds constants of a given type.
Expr MakeConst(DataType t, double value);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_H_
