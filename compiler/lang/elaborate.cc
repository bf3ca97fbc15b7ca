#include "compiler/lang/elaborate.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/lang/index_bounds.h"
#include "compiler/lang/printer.h"

namespace tunefarm::lang {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

// Tensors stay addressable with int32 index arithmetic.
constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

absl::Status ErrorAt(SourcePos p, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("line ", p.line, ", column ", p.column, ": ", what));
}

// A checked, built expression. A literal has no type of its own until it meets a typed value;
// meanwhile its expression has the default type (int32 or float32).
struct Value {
  enum class Kind { kTyped, kIntLiteral, kFloatLiteral };
  Kind kind = Kind::kTyped;
  Expr expr;
  DataType type() const { return expr.type(); }
  bool literal() const { return kind != Kind::kTyped; }
  bool numeric() const { return literal() || !type().is_bool(); }
};

Value Typed(Expr e) { return Value{Value::Kind::kTyped, std::move(e)}; }

std::string TypeName(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kIntLiteral:
      return "an integer literal";
    case Value::Kind::kFloatLiteral:
      return "a float literal";
    default:
      return v.type().ToString();
  }
}

// The value as type t (literals take it; typed values already have it).
Expr As(const Value& v, DataType t) { return v.literal() ? ir::cast(t, v.expr) : v.expr; }

bool IsFloatFunction(const std::string& name) {
  return name == "exp" || name == "log" || name == "sqrt" || name == "tanh" || name == "sigmoid" ||
         name == "erf" || name == "gelu";
}

constexpr const char* kFunctions =
    "exp, log, sqrt, tanh, sigmoid, erf, gelu, abs, pow, max, min, select and casts such as "
    "float32(x)";

// Integer arithmetic on bound shape variables, for extents. nullopt on overflow.
std::optional<int64_t> Arith(const std::string& op, int64_t a, int64_t b) {
  int64_t v = 0;
  if (op == "+") return __builtin_add_overflow(a, b, &v) ? std::nullopt : std::optional(v);
  if (op == "-") return __builtin_sub_overflow(a, b, &v) ? std::nullopt : std::optional(v);
  if (op == "*") return __builtin_mul_overflow(a, b, &v) ? std::nullopt : std::optional(v);
  if ((op == "/" || op == "%") && b > 0) {
    int64_t q = a / b;
    if (a % b != 0 && a < 0) --q;
    return op == "/" ? q : a - q * b;
  }
  return std::nullopt;
}

void CollectReductions(const Node& n, std::vector<const Node*>* out) {
  if (n.kind == Node::Kind::kReduce) out->push_back(&n);
  for (const NodePtr& a : n.args) CollectReductions(*a, out);
}

void CollectAccesses(const Node& n, std::vector<std::string>* out) {
  if (n.kind == Node::Kind::kAccess) out->push_back(n.name);
  for (const NodePtr& a : n.args) CollectAccesses(*a, out);
}

bool ReadsTensor(const Node& n) {
  if (n.kind == Node::Kind::kAccess) return true;
  for (const NodePtr& a : n.args) {
    if (ReadsTensor(*a)) return true;
  }
  return false;
}

class Elaborator {
 public:
  explicit Elaborator(const ShapeBindings& shapes) : shapes_(shapes) {}

  absl::StatusOr<ElaboratedProgram> Run(const Program& program) {
    const std::vector<std::string> vars = ShapeVariables(program);
    shape_vars_.insert(vars.begin(), vars.end());
    std::vector<std::string> bound;
    for (const auto& [name, value] : shapes_) bound.push_back(name);
    std::sort(bound.begin(), bound.end());
    for (const std::string& name : bound) {
      if (!shape_vars_.contains(name)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "shape binding '", name, "' names no shape variable of the program (it has ",
            vars.empty() ? "none" : absl::StrJoin(vars, ", "), ")"));
      }
      // 0 is a binding (a padding of 0, an offset); every extent a binding makes is checked
      // to be positive where it is used, and every divisor nonzero.
      if (shapes_.at(name) < 0 || shapes_.at(name) > kMaxElements) {
        return absl::InvalidArgumentError(absl::StrCat(
            "shape binding ", name, "=", shapes_.at(name), " must be in [0, ", kMaxElements, "]"));
      }
    }
    for (const Statement& s : program.statements) defined_at_.emplace(s.name, s.pos);
    for (const Statement& s : program.statements) {
      absl::Status st = s.kind == Statement::Kind::kInput      ? DeclareInput(s)
                        : s.kind == Statement::Kind::kConstant ? DeclareConstant(s)
                                                               : Define(s);
      if (!st.ok()) return st;
    }
    if (out_.stages.empty()) {
      return ErrorAt(program.statements.back().pos,
                     "the program defines no tensor; add a definition such as `C[i, j] = ...`");
    }
    for (const Statement& s : program.statements) {
      const TensorInfo& info = tensors_.at(s.name);
      if (info.used || info.tensor == out_.output()) continue;
      return ErrorAt(
          s.pos, s.kind != Statement::Kind::kDefine
                     ? absl::StrCat(s.kind == Statement::Kind::kInput ? "input '" : "constant '",
                                    s.name, "' is never read")
                     : absl::StrCat("'", s.name,
                                    "' is defined but never read; the last "
                                    "definition is the program's only output"));
    }
    return std::move(out_);
  }

 private:
  struct TensorInfo {
    te::Tensor tensor;
    bool used = false;
    // Computed from weights and constant tables alone (a weight itself too): the generated
    // space computes such a stage once, ahead of the calls, so it adds no FLOPs to a call.
    bool from_weights = false;
    bool constant = false;  // A constant(...) table, or computed from tables alone.
  };
  // Where an index variable indexes a tensor dimension directly: its inferred extent.
  struct Use {
    int64_t extent;
    std::string what;  // "A's dimension 0"
    SourcePos pos;
  };

  absl::Status CheckNewTensorName(const Statement& s) {
    if (tensors_.contains(s.name)) {
      return ErrorAt(s.pos, absl::StrCat("'", s.name, "' is already defined"));
    }
    if (shape_vars_.contains(s.name)) {
      return ErrorAt(s.pos, absl::StrCat("'", s.name,
                                         "' is a shape variable; a tensor needs "
                                         "another name"));
    }
    return absl::OkStatus();
  }

  // An extent: a positive integer expression of literals and bound shape variables.
  absl::StatusOr<int64_t> Extent(const Node& n, absl::string_view what) {
    absl::StatusOr<int64_t> v = ConstInt(n);
    if (!v.ok()) return v;
    if (*v < 1 || *v > kMaxElements) {
      return ErrorAt(n.pos, absl::StrCat(what, " '", ExprText(n), "' is ", *v,
                                         "; extents must be in [1, ", kMaxElements, "]"));
    }
    return v;
  }

  // An input's dimension that is a quotient (a blocked layout: W[K / 4][N][4]) must divide
  // exactly: rounded down, the data the layout holds would not be what the caller has, and a
  // reduction over K / 4 groups would silently leave out K % 4 inputs. A quotient inside a
  // dimension rounds down as written (a convolution's output rows, (H + 2 * P - R) / S + 1).
  absl::Status CheckExactDivisions(const Node& n, absl::string_view what) {
    if (n.kind != Node::Kind::kBinary || n.name != "/") return absl::OkStatus();
    absl::StatusOr<int64_t> a = ConstInt(*n.args[0]);
    absl::StatusOr<int64_t> b = ConstInt(*n.args[1]);
    if (!a.ok()) return a.status();
    if (!b.ok()) return b.status();
    if (*b > 0 && *a % *b != 0) {
      return ErrorAt(n.pos, absl::StrCat(what, ": '", ExprText(n), "' is ", *a, " / ", *b,
                                         ", not a whole number; bind shapes that divide exactly (",
                                         ExprText(*n.args[0]), " a multiple of ", *b, ")"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int64_t> ConstInt(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kInt:
        return n.int_value;
      case Node::Kind::kName: {
        auto it = shapes_.find(n.name);
        if (it != shapes_.end()) return it->second;
        if (!shape_vars_.contains(n.name)) {
          return ErrorAt(n.pos, absl::StrCat("'", n.name,
                                             "' is not a shape variable; extents "
                                             "are built from shape variables and "
                                             "integers"));
        }
        return ErrorAt(
            n.pos, absl::StrCat("shape variable '", n.name,
                                "' is not bound; bind it at submission, e.g. ", n.name, "=128"));
      }
      case Node::Kind::kUnary:
        if (n.name == "-") {
          absl::StatusOr<int64_t> a = ConstInt(*n.args[0]);
          if (!a.ok()) return a;
          if (std::optional<int64_t> v = Arith("-", 0, *a)) return *v;
        }
        break;
      case Node::Kind::kBinary: {
        absl::StatusOr<int64_t> a = ConstInt(*n.args[0]);
        if (!a.ok()) return a;
        absl::StatusOr<int64_t> b = ConstInt(*n.args[1]);
        if (!b.ok()) return b;
        if (std::optional<int64_t> v = Arith(n.name, *a, *b)) return *v;
        if ((n.name == "/" || n.name == "%") && *b <= 0) {
          return ErrorAt(n.pos, absl::StrCat("'", ExprText(n), "' divides by ", *b));
        }
        if (n.name == "+" || n.name == "-" || n.name == "*") {
          return ErrorAt(n.pos, absl::StrCat("'", ExprText(n), "' overflows int64"));
        }
        break;
      }
      case Node::Kind::kCall:
        if ((n.name == "max" || n.name == "min") && n.args.size() == 2) {
          absl::StatusOr<int64_t> a = ConstInt(*n.args[0]);
          if (!a.ok()) return a;
          absl::StatusOr<int64_t> b = ConstInt(*n.args[1]);
          if (!b.ok()) return b;
          return n.name == "max" ? std::max(*a, *b) : std::min(*a, *b);
        }
        break;
      default:
        break;
    }
    return ErrorAt(n.pos, absl::StrCat("'", ExprText(n),
                                       "' is not an integer expression of shape variables "
                                       "(+ - * / %, max, min)"));
  }

  absl::Status CheckElements(const std::vector<int64_t>& extents, const Statement& s) {
    int64_t elements = 1;
    for (int64_t e : extents) {
      if (__builtin_mul_overflow(elements, e, &elements) || elements > kMaxElements) {
        return ErrorAt(
            s.pos, absl::StrCat("'", s.name, "' would hold more than ", kMaxElements, " elements"));
      }
    }
    return absl::OkStatus();
  }

  // The element type a declaration names (input, weight, constant).
  absl::StatusOr<DataType> ElementType(const Statement& s) {
    absl::StatusOr<DataType> dtype = ir::ParseDataType(s.dtype);
    if (!dtype.ok() || dtype->is_vector() || dtype->is_handle() || dtype->is_bool()) {
      return ErrorAt(s.dtype_pos, absl::StrCat("unknown element type '", s.dtype,
                                               "'; use float16/32/64, int8/16/32/64 or uint8"));
    }
    return dtype;
  }

  absl::Status DeclareInput(const Statement& s) {
    if (absl::Status st = CheckNewTensorName(s); !st.ok()) return st;
    absl::StatusOr<DataType> dtype = ElementType(s);
    if (!dtype.ok()) return dtype.status();
    std::vector<int64_t> extents;
    std::vector<Expr> shape;
    for (size_t d = 0; d < s.shape.size(); ++d) {
      const std::string what = absl::StrCat("dimension ", d, " of ", s.name);
      absl::StatusOr<int64_t> e = Extent(*s.shape[d], what);
      if (!e.ok()) return e.status();
      if (absl::Status st = CheckExactDivisions(*s.shape[d], what); !st.ok()) return st;
      extents.push_back(*e);
      shape.push_back(Expr(static_cast<int>(*e)));
    }
    if (absl::Status st = CheckElements(extents, s); !st.ok()) return st;
    te::Tensor t = te::Placeholder(std::move(shape), *dtype, s.name);
    tensors_.emplace(s.name, TensorInfo{t, false, s.weight});
    out_.inputs.push_back(t);
    if (s.weight) out_.weights.push_back(t);
    return absl::OkStatus();
  }

  // A constant(...) table: a stage with no inputs whose element is its value, chosen by a
  // balanced tree of selects on the row-major index (depth log2 of the size; a run of equal
  // values is one leaf). Every reader sees an ordinary tensor; a reader whose indices are
  // constants after unrolling reads the value itself once the selects fold.
  absl::Status DeclareConstant(const Statement& s) {
    if (absl::Status st = CheckNewTensorName(s); !st.ok()) return st;
    absl::StatusOr<DataType> dtype = ElementType(s);
    if (!dtype.ok()) return dtype.status();
    std::vector<Expr> values;
    std::vector<double> numbers;  // The same values, compared to find runs.
    for (const NodePtr& v : s.table_values) {
      numbers.push_back(v->kind == Node::Kind::kInt ? static_cast<double>(v->int_value)
                                                    : v->float_value);
      if (dtype->is_float()) {
        values.push_back(ir::MakeConst(*dtype, v->kind == Node::Kind::kInt
                                                   ? static_cast<double>(v->int_value)
                                                   : v->float_value));
        continue;
      }
      if (v->kind != Node::Kind::kInt) {
        return ErrorAt(v->pos, absl::StrCat("'", ExprText(*v), "' is not an integer; ", s.name,
                                            " holds ", s.dtype));
      }
      const int bits = dtype->bits;
      const bool is_unsigned = dtype->is_uint();
      const int64_t lo = is_unsigned ? 0 : bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
      const int64_t hi = bits >= 64    ? INT64_MAX
                         : is_unsigned ? (int64_t{1} << bits) - 1
                                       : (int64_t{1} << (bits - 1)) - 1;
      if (v->int_value < lo || v->int_value > hi) {
        return ErrorAt(v->pos, absl::StrCat(v->int_value, " does not fit ", s.dtype, " (", lo,
                                            " to ", hi, ")"));
      }
      values.push_back(ir::IntImmNode::Make(*dtype, v->int_value));
    }
    std::vector<Expr> shape;
    std::vector<std::string> axis_names;
    for (size_t d = 0; d < s.table_shape.size(); ++d) {
      shape.push_back(Expr(static_cast<int>(s.table_shape[d])));
      axis_names.push_back(absl::StrCat("i", d));
    }
    absl::StatusOr<te::Tensor> t = te::Compute(
        shape,
        [&](const std::vector<Var>& vars) -> Expr {
          Expr flat = Expr(0);
          for (size_t d = 0; d < vars.size(); ++d) {
            flat =
                d == 0 ? Expr(vars[d]) : flat * static_cast<int>(s.table_shape[d]) + Expr(vars[d]);
          }
          return SelectTree(values, numbers, flat, 0, values.size());
        },
        s.name, axis_names);
    if (!t.ok()) return ErrorAt(s.pos, t.status().message());
    tensors_.emplace(s.name, TensorInfo{*t, false, false, true});
    out_.stages.push_back(*t);
    return absl::OkStatus();
  }

  // values[index] for index in [lo, hi).
  static Expr SelectTree(const std::vector<Expr>& values, const std::vector<double>& numbers,
                         const Expr& index, size_t lo, size_t hi) {
    if (std::all_of(numbers.begin() + lo, numbers.begin() + hi,
                    [&](double v) { return v == numbers[lo]; })) {
      return values[lo];
    }
    const size_t mid = lo + (hi - lo) / 2;
    return ir::select(index < static_cast<int>(mid), SelectTree(values, numbers, index, lo, mid),
                      SelectTree(values, numbers, index, mid, hi));
  }

  // The tensor an access names, checked: it exists, was defined earlier, is not the stage
  // being defined, and gets one index per dimension.
  absl::StatusOr<TensorInfo*> Lookup(const Node& n) {
    if (n.name == current_) {
      return ErrorAt(n.pos, absl::StrCat("'", n.name,
                                         "' reads itself; a definition cannot be "
                                         "recursive"));
    }
    auto it = tensors_.find(n.name);
    if (it == tensors_.end()) {
      auto later = defined_at_.find(n.name);
      if (later != defined_at_.end()) {
        return ErrorAt(n.pos, absl::StrCat("tensor '", n.name,
                                           "' is used before its definition "
                                           "on line ",
                                           later->second.line));
      }
      return ErrorAt(n.pos, absl::StrCat("unknown tensor '", n.name, "'"));
    }
    const size_t rank = it->second.tensor.ndim();
    if (n.args.size() != rank) {
      return ErrorAt(n.pos,
                     absl::StrCat("tensor '", n.name, "' has ", rank, " dimension",
                                  rank == 1 ? "" : "s", " but is indexed with ", n.args.size()));
    }
    return &it->second;
  }

  // Records the extents implied by index variables that index a dimension directly.
  // Reports the access errors of Lookup on the way, before any extent is missed for them.
  absl::Status InferUses(const Node& n, absl::flat_hash_map<std::string, std::vector<Use>>* uses) {
    if (n.kind == Node::Kind::kAccess) {
      absl::StatusOr<TensorInfo*> info = Lookup(n);
      if (!info.ok()) return info.status();
      const te::Tensor& t = (*info)->tensor;
      for (size_t d = 0; d < n.args.size(); ++d) {
        const Node& index = *n.args[d];
        if (index.kind != Node::Kind::kName) continue;
        const int64_t* extent = ir::AsConstInt(t.shape()[d]);
        (*uses)[index.name].push_back(
            Use{*extent, absl::StrCat(n.name, "'s dimension ", d), index.pos});
      }
    }
    for (const NodePtr& a : n.args) {
      if (absl::Status st = InferUses(*a, uses); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int64_t> AxisExtent(
      const AxisDecl& a, const absl::flat_hash_map<std::string, std::vector<Use>>& uses) {
    if (a.extent != nullptr) return Extent(*a.extent, absl::StrCat("the extent of ", a.name));
    auto it = uses.find(a.name);
    if (it == uses.end()) {
      return ErrorAt(a.pos, absl::StrCat("cannot infer the extent of '", a.name,
                                         "': it never indexes a tensor dimension directly; "
                                         "write it as `",
                                         a.name, " < extent`"));
    }
    const Use& first = it->second.front();
    for (const Use& u : it->second) {
      if (u.extent != first.extent) {
        return ErrorAt(u.pos, absl::StrCat("'", a.name, "' indexes ", first.what, " (extent ",
                                           first.extent, ") and here ", u.what, " (extent ",
                                           u.extent, "); write `", a.name, " < extent` to choose"));
      }
    }
    return first.extent;
  }

  absl::Status Define(const Statement& s) {
    if (absl::Status st = CheckNewTensorName(s); !st.ok()) return st;
    current_ = s.name;
    scope_.clear();
    reduce_names_.clear();
    reduce_extents_.clear();
    bounds_ = std::make_unique<IndexBounds>(&shapes_);
    ops_ = 0;
    reduce_points_ = 1;

    absl::flat_hash_set<std::string> names;
    auto declare = [&](const AxisDecl& a) -> absl::Status {
      if (shape_vars_.contains(a.name)) {
        return ErrorAt(a.pos, absl::StrCat("'", a.name,
                                           "' is a shape variable; an index "
                                           "variable needs another name"));
      }
      if (!names.insert(a.name).second) {
        return ErrorAt(a.pos, absl::StrCat("index variable '", a.name,
                                           "' is declared twice in this statement"));
      }
      return absl::OkStatus();
    };
    for (const AxisDecl& a : s.axes) {
      if (absl::Status st = declare(a); !st.ok()) return st;
    }
    std::vector<const Node*> reductions;
    CollectReductions(*s.body, &reductions);
    for (const Node* r : reductions) {
      for (const AxisDecl& a : r->axes) {
        if (absl::Status st = declare(a); !st.ok()) return st;
        reduce_names_.insert(a.name);
      }
    }
    absl::flat_hash_map<std::string, std::vector<Use>> uses;
    if (absl::Status st = InferUses(*s.body, &uses); !st.ok()) return st;
    std::vector<int64_t> extents;
    std::vector<Expr> shape;
    std::vector<std::string> axis_names;
    for (const AxisDecl& a : s.axes) {
      absl::StatusOr<int64_t> e = AxisExtent(a, uses);
      if (!e.ok()) return e.status();
      extents.push_back(*e);
      shape.push_back(Expr(static_cast<int>(*e)));
      axis_names.push_back(a.name);
      bounds_->BindVar(a.name, *e);
    }
    if (absl::Status st = CheckElements(extents, s); !st.ok()) return st;
    for (const Node* r : reductions) {
      for (const AxisDecl& a : r->axes) {
        absl::StatusOr<int64_t> e = AxisExtent(a, uses);
        if (!e.ok()) return e.status();
        reduce_extents_[a.name] = *e;
      }
    }

    absl::Status body_status;
    absl::StatusOr<te::Tensor> t = te::Compute(
        shape,
        [&](const std::vector<Var>& vars) -> Expr {
          for (size_t d = 0; d < vars.size(); ++d) scope_[s.axes[d].name] = vars[d];
          top_ = s.body.get();
          absl::StatusOr<Value> v = Elab(*s.body);
          if (!v.ok()) {
            body_status = v.status();
            return Expr();
          }
          if (v->type().is_bool() && !v->literal()) {
            body_status = ErrorAt(s.body->pos,
                                  "a tensor's elements must be numbers, not bools; "
                                  "write select(cond, 1.0, 0.0)");
            return Expr();
          }
          return v->expr;
        },
        s.name, axis_names);
    if (!body_status.ok()) return body_status;
    if (!t.ok()) return ErrorAt(s.pos, t.status().message());
    double elements = 1;
    for (int64_t e : extents) elements *= static_cast<double>(e);
    std::vector<std::string> read;
    CollectAccesses(*s.body, &read);
    bool reads_weight = false, from_weights = true, constant = !read.empty();
    for (const std::string& name : read) {
      const TensorInfo& info = tensors_.at(name);
      reads_weight = reads_weight || info.from_weights;
      from_weights = from_weights && (info.from_weights || info.constant);
      constant = constant && info.constant;
    }
    from_weights = from_weights && reads_weight;
    if (!from_weights) out_.flop += elements * reduce_points_ * ops_;
    tensors_.emplace(s.name, TensorInfo{*t, false, from_weights, constant});
    out_.stages.push_back(*t);
    current_.clear();
    return absl::OkStatus();
  }

  // Two operands brought to one type (see elaborate.h); `what` names the operator for errors.
  absl::StatusOr<std::pair<Expr, Expr>> Unify(const Value& a, const Value& b, const Node& at,
                                              absl::string_view what, Value::Kind* kind) {
    if (!a.numeric() || !b.numeric()) {
      return ErrorAt(at.pos, absl::StrCat(what, " needs numbers, got ", TypeName(a), " and ",
                                          TypeName(b), " in '", ExprText(at), "'"));
    }
    auto float_literal_meets_int = [&](const Value& lit, const Value& typed) {
      return lit.kind == Value::Kind::kFloatLiteral && !typed.type().is_float();
    };
    if (!a.literal() && !b.literal()) {
      if (a.type() != b.type()) {
        return ErrorAt(
            at.pos, absl::StrCat("dtype mismatch in '", ExprText(at), "': ", TypeName(a), " ", what,
                                 " ", TypeName(b), "; convert one side with a cast such as ",
                                 a.type().ToString(), "(...)"));
      }
      *kind = Value::Kind::kTyped;
      return std::make_pair(a.expr, b.expr);
    }
    if (a.literal() && b.literal()) {
      const bool is_float =
          a.kind == Value::Kind::kFloatLiteral || b.kind == Value::Kind::kFloatLiteral;
      *kind = is_float ? Value::Kind::kFloatLiteral : Value::Kind::kIntLiteral;
      const DataType t = is_float                         ? DataType::Float(32)
                         : a.type().bits >= b.type().bits ? a.type()
                                                          : b.type();
      return std::make_pair(As(a, t), As(b, t));
    }
    const Value& typed = a.literal() ? b : a;
    const Value& lit = a.literal() ? a : b;
    if (float_literal_meets_int(lit, typed)) {
      return ErrorAt(at.pos, absl::StrCat("dtype mismatch in '", ExprText(at),
                                          "': a float "
                                          "literal meets ",
                                          TypeName(typed), "; cast the ", TypeName(typed),
                                          " side, e.g. float32(...)"));
    }
    *kind = Value::Kind::kTyped;
    return std::make_pair(As(a, typed.type()), As(b, typed.type()));
  }

  void CountOp(const Value& result) {
    if (!result.literal() && index_depth_ == 0) ++ops_;
  }

  absl::StatusOr<Value> Elab(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kInt:
        if (n.int_value >= INT32_MIN && n.int_value <= INT32_MAX) {
          return Value{Value::Kind::kIntLiteral, Expr(static_cast<int>(n.int_value))};
        }
        return Value{Value::Kind::kIntLiteral,
                     ir::IntImmNode::Make(DataType::Int(64), n.int_value)};
      case Node::Kind::kFloat:
        return Value{Value::Kind::kFloatLiteral,
                     ir::FloatImmNode::Make(DataType::Float(32), n.float_value)};
      case Node::Kind::kName:
        return ElabName(n);
      case Node::Kind::kAccess:
        return ElabAccess(n);
      case Node::Kind::kReduce:
        return ElabReduce(n);
      case Node::Kind::kCall:
        return ElabCall(n);
      case Node::Kind::kUnary: {
        absl::StatusOr<Value> a = Elab(*n.args[0]);
        if (!a.ok()) return a;
        if (n.name == "!") {
          if (a->literal() || !a->type().is_bool()) {
            return ErrorAt(n.pos, absl::StrCat("'!' needs a condition, got ", TypeName(*a)));
          }
          return Typed(!a->expr);
        }
        if (!a->numeric()) {
          return ErrorAt(n.pos, absl::StrCat("'-' needs a number, got ", TypeName(*a)));
        }
        Value out{a->kind, -a->expr};
        CountOp(out);
        return out;
      }
      case Node::Kind::kBinary:
        return ElabBinary(n);
    }
    return ErrorAt(n.pos, "unknown expression");
  }

  absl::StatusOr<Value> ElabName(const Node& n) {
    if (auto it = scope_.find(n.name); it != scope_.end()) return Typed(it->second);
    if (reduce_names_.contains(n.name)) {
      return ErrorAt(
          n.pos, absl::StrCat("reduction variable '", n.name, "' is used outside its reduction"));
    }
    if (shape_vars_.contains(n.name)) {
      absl::StatusOr<int64_t> v = ConstInt(n);
      if (!v.ok()) return v.status();
      return Value{Value::Kind::kIntLiteral, *v <= INT32_MAX
                                                 ? Expr(static_cast<int>(*v))
                                                 : ir::IntImmNode::Make(DataType::Int(64), *v)};
    }
    if (tensors_.contains(n.name)) {
      return ErrorAt(n.pos, absl::StrCat("'", n.name, "' is a tensor; read an element with ",
                                         n.name, "[...]"));
    }
    return ErrorAt(n.pos, absl::StrCat("unknown name '", n.name,
                                       "'; a body uses index variables, shape variables and "
                                       "tensor elements"));
  }

  absl::StatusOr<Value> ElabAccess(const Node& n) {
    absl::StatusOr<TensorInfo*> info = Lookup(n);
    if (!info.ok()) return info.status();
    const te::Tensor& t = (*info)->tensor;
    std::vector<Expr> indices;
    for (size_t d = 0; d < n.args.size(); ++d) {
      const Node& index = *n.args[d];
      if (ReadsTensor(index)) {
        return ErrorAt(index.pos, absl::StrCat("index '", ExprText(index), "' of ", n.name,
                                               " reads tensor data; gathers are not supported"));
      }
      ++index_depth_;
      absl::StatusOr<Value> v = Elab(index);
      --index_depth_;
      if (!v.ok()) return v;
      if (v->kind == Value::Kind::kFloatLiteral || (!v->literal() && !v->type().is_int())) {
        return ErrorAt(index.pos, absl::StrCat("index '", ExprText(index), "' of ", n.name,
                                               " must be an integer, got ", TypeName(*v)));
      }
      const int64_t extent = *ir::AsConstInt(t.shape()[d]);
      std::optional<Interval> range = bounds_->Bound(index);
      if (!range.has_value()) {
        return ErrorAt(index.pos,
                       absl::StrCat("cannot bound index '", ExprText(index), "' of ", n.name,
                                    "; build indices from index variables, constants, + - * / "
                                    "%, max and min, and guard them with select(...)"));
      }
      if (range->min <= range->max && (range->min < 0 || range->max >= extent)) {
        return ErrorAt(index.pos,
                       absl::StrCat("index out of bounds: '", ExprText(index), "' ranges over [",
                                    range->min, ", ", range->max, "] but dimension ", d, " of ",
                                    n.name, " has extent ", extent,
                                    "; guard the read with "
                                    "select(...) or narrow the "
                                    "ranges"));
      }
      indices.push_back(ir::cast(DataType::Int(32), v->expr));
    }
    (*info)->used = true;
    return Typed(t(std::move(indices)));
  }

  absl::StatusOr<Value> ElabReduce(const Node& n) {
    if (&n != top_) {
      return ErrorAt(n.pos, absl::StrCat("a reduction must be the whole right-hand side of a "
                                         "definition; define `T[...] = ",
                                         n.name, "(...)` as its own stage and read T here"));
    }
    std::vector<te::IterVar> axes;
    for (const AxisDecl& a : n.axes) {
      const int64_t extent = reduce_extents_.at(a.name);
      te::IterVar iv = te::ReduceAxis(Expr(static_cast<int>(extent)), a.name);
      scope_[a.name] = iv->var;
      bounds_->BindVar(a.name, extent);
      axes.push_back(iv);
      reduce_points_ *= static_cast<double>(extent);
    }
    absl::StatusOr<Value> body = Elab(*n.args[0]);
    for (const AxisDecl& a : n.axes) scope_.erase(a.name);
    if (!body.ok()) return body;
    if (!body->numeric()) {
      return ErrorAt(n.pos, absl::StrCat(n.name, "(...) needs numbers, got ", TypeName(*body)));
    }
    Expr source = body->literal() ? As(*body, body->type()) : body->expr;
    ++ops_;  // The combining step.
    if (n.name == "sum") return Typed(te::Sum(source, axes));
    if (n.name == "max") return Typed(te::Max(source, axes));
    return Typed(te::Min(source, axes));
  }

  absl::StatusOr<Value> ElabBinary(const Node& n) {
    const std::string& op = n.name;
    absl::StatusOr<Value> a = Elab(*n.args[0]);
    if (!a.ok()) return a;
    absl::StatusOr<Value> b = Elab(*n.args[1]);
    if (!b.ok()) return b;
    if (op == "&&" || op == "||") {
      if (a->literal() || b->literal() || !a->type().is_bool() || !b->type().is_bool()) {
        return ErrorAt(n.pos, absl::StrCat("'", op, "' joins conditions, got ", TypeName(*a),
                                           " and ", TypeName(*b)));
      }
      return Typed(op == "&&" ? (a->expr && b->expr) : (a->expr || b->expr));
    }
    Value::Kind kind;
    absl::StatusOr<std::pair<Expr, Expr>> ab = Unify(*a, *b, n, absl::StrCat("'", op, "'"), &kind);
    if (!ab.ok()) return ab.status();
    auto [x, y] = *std::move(ab);
    const bool integral = !x.type().is_float();
    if (op == "<") return Typed(x < y);
    if (op == "<=") return Typed(x <= y);
    if (op == ">") return Typed(x > y);
    if (op == ">=") return Typed(x >= y);
    if (op == "==") return Typed(ir::eq(x, y));
    if (op == "!=") return Typed(ir::ne(x, y));
    Value out{kind, Expr()};
    if (op == "+") out.expr = x + y;
    if (op == "-") out.expr = x - y;
    if (op == "*") out.expr = x * y;
    if (op == "/") out.expr = integral ? ir::floordiv(x, y) : x / y;
    if (op == "%") {
      if (!integral) {
        return ErrorAt(n.pos, absl::StrCat("'%' needs integers, got ", x.type().ToString(), " in '",
                                           ExprText(n), "'"));
      }
      out.expr = ir::floormod(x, y);
    }
    CountOp(out);
    return out;
  }

  absl::StatusOr<Value> ElabCall(const Node& n) {
    const std::string& f = n.name;
    auto arity = [&](size_t want) -> absl::Status {
      if (n.args.size() == want) return absl::OkStatus();
      return ErrorAt(n.pos, absl::StrCat(f, "(...) takes ", want, " argument", want == 1 ? "" : "s",
                                         ", got ", n.args.size()));
    };
    absl::StatusOr<DataType> cast_to = ir::ParseDataType(f);
    const bool known = IsFloatFunction(f) || f == "abs" || f == "pow" || f == "max" || f == "min" ||
                       f == "select" || cast_to.ok();
    if (!known) {
      return ErrorAt(n.pos,
                     absl::StrCat("unknown function '", f, "'; the functions are ", kFunctions));
    }
    if (f == "select") {
      if (absl::Status st = arity(3); !st.ok()) return st;
      absl::StatusOr<Value> c = Elab(*n.args[0]);
      if (!c.ok()) return c;
      if (c->literal() || !c->type().is_bool()) {
        return ErrorAt(n.args[0]->pos, absl::StrCat("select's first argument must be a "
                                                    "condition, got ",
                                                    TypeName(*c)));
      }
      int facts = bounds_->Assume(*n.args[0], true);
      absl::StatusOr<Value> a = Elab(*n.args[1]);
      bounds_->Forget(facts);
      if (!a.ok()) return a;
      facts = bounds_->Assume(*n.args[0], false);
      absl::StatusOr<Value> b = Elab(*n.args[2]);
      bounds_->Forget(facts);
      if (!b.ok()) return b;
      Value::Kind kind;
      absl::StatusOr<std::pair<Expr, Expr>> ab = Unify(*a, *b, n, "select's two values", &kind);
      if (!ab.ok()) return ab.status();
      return Value{kind, ir::select(c->expr, ab->first, ab->second)};
    }
    if (f == "max" || f == "min" || f == "pow") {
      if (absl::Status st = arity(2); !st.ok()) return st;
      absl::StatusOr<Value> a = Elab(*n.args[0]);
      if (!a.ok()) return a;
      absl::StatusOr<Value> b = Elab(*n.args[1]);
      if (!b.ok()) return b;
      Value::Kind kind;
      absl::StatusOr<std::pair<Expr, Expr>> ab = Unify(*a, *b, n, f, &kind);
      if (!ab.ok()) return ab.status();
      auto [x, y] = *std::move(ab);
      if (f == "pow" && !x.type().is_float()) {
        return ErrorAt(n.pos, absl::StrCat("pow needs floats, got ", x.type().ToString(),
                                           "; cast with float32(...)"));
      }
      Value out{kind, f == "max" ? ir::max(x, y) : f == "min" ? ir::min(x, y) : ir::pow(x, y)};
      CountOp(out);
      return out;
    }
    if (absl::Status st = arity(1); !st.ok()) return st;
    absl::StatusOr<Value> a = Elab(*n.args[0]);
    if (!a.ok()) return a;
    if (cast_to.ok()) {
      if (cast_to->is_vector() || cast_to->is_handle()) {
        return ErrorAt(n.pos, absl::StrCat("cannot cast to ", f));
      }
      return Typed(ir::cast(*cast_to, a->literal() ? As(*a, a->type()) : a->expr));
    }
    if (!a->numeric()) {
      return ErrorAt(n.pos, absl::StrCat(f, " needs a number, got ", TypeName(*a)));
    }
    if (f == "abs") {
      Value out{a->kind, a->type().is_float() ? ir::fabs(a->expr)
                                              : ir::select(a->expr < 0, -a->expr, a->expr)};
      CountOp(out);
      return out;
    }
    if (a->kind == Value::Kind::kIntLiteral || (!a->literal() && !a->type().is_float())) {
      return ErrorAt(n.pos, absl::StrCat(f, " needs a float argument, got ", TypeName(*a),
                                         "; write ", f, "(float32(", ExprText(*n.args[0]), "))"));
    }
    const Expr x = a->expr;
    Expr y;
    if (f == "exp") y = ir::exp(x);
    if (f == "log") y = ir::log(x);
    if (f == "sqrt") y = ir::sqrt(x);
    if (f == "tanh") y = ir::tanh(x);
    if (f == "sigmoid") y = ir::sigmoid(x);
    if (f == "erf") y = ir::erf(x);
    if (f == "gelu") {
      const DataType t = x.type();
      y = ir::MakeConst(t, 0.5) * x *
          (ir::MakeConst(t, 1.0) + ir::erf(x * ir::MakeConst(t, 0.7071067811865476)));
    }
    Value out{a->kind, y};
    CountOp(out);
    return out;
  }

  const ShapeBindings& shapes_;
  absl::flat_hash_set<std::string> shape_vars_;
  absl::flat_hash_map<std::string, SourcePos> defined_at_;  // Every statement's name.
  absl::flat_hash_map<std::string, TensorInfo> tensors_;    // Declared so far.
  ElaboratedProgram out_;

  // The statement being defined.
  std::string current_;
  const Node* top_ = nullptr;                    // Its body: the one place a reduction may be.
  absl::flat_hash_map<std::string, Var> scope_;  // Index variables in scope.
  absl::flat_hash_set<std::string> reduce_names_;
  absl::flat_hash_map<std::string, int64_t> reduce_extents_;
  std::unique_ptr<IndexBounds> bounds_;
  int index_depth_ = 0;  // > 0 inside an index, whose arithmetic is not counted as FLOPs.
  double ops_ = 0;       // Operations per point of the iteration space.
  double reduce_points_ = 1;
};

void CollectShapeNames(const Node& n, const absl::flat_hash_set<std::string>& index_vars,
                       std::vector<std::string>* out, absl::flat_hash_set<std::string>* seen) {
  if (n.kind == Node::Kind::kName && !index_vars.contains(n.name) && seen->insert(n.name).second) {
    out->push_back(n.name);
  }
  for (const NodePtr& a : n.args) CollectShapeNames(*a, index_vars, out, seen);
}

}  // namespace

std::vector<te::Tensor> ElaboratedProgram::args() const {
  std::vector<te::Tensor> out = inputs;
  out.push_back(output());
  return out;
}

std::vector<std::string> ShapeVariables(const Program& program) {
  std::vector<std::string> out;
  absl::flat_hash_set<std::string> seen;
  const absl::flat_hash_set<std::string> none;
  for (const Statement& s : program.statements) {
    for (const NodePtr& e : s.shape) CollectShapeNames(*e, none, &out, &seen);
    absl::flat_hash_set<std::string> index_vars;
    for (const AxisDecl& a : s.axes) index_vars.insert(a.name);
    std::vector<const Node*> reductions;
    if (s.body != nullptr) CollectReductions(*s.body, &reductions);
    for (const Node* r : reductions) {
      for (const AxisDecl& a : r->axes) index_vars.insert(a.name);
    }
    for (const AxisDecl& a : s.axes) {
      if (a.extent != nullptr) CollectShapeNames(*a.extent, index_vars, &out, &seen);
    }
    for (const Node* r : reductions) {
      for (const AxisDecl& a : r->axes) {
        if (a.extent != nullptr) CollectShapeNames(*a.extent, index_vars, &out, &seen);
      }
    }
  }
  return out;
}

absl::StatusOr<ElaboratedProgram> Elaborate(const Program& program, const ShapeBindings& shapes) {
  return Elaborator(shapes).Run(program);
}

}  // namespace tunefarm::lang
