#include "compiler/arith/analyzer.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"

namespace tunefarm::arith {

using ir::BinaryNode;
using ir::BinaryOp;
using ir::Expr;

namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// A canonical integer sum: Σ coef_i * atom_i + constant.
struct Sum {
  std::vector<std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;

  void AddTerm(const Expr& atom, int64_t coef) {
    if (coef == 0) return;
    for (auto& [a, c] : terms) {
      if (ir::StructuralEqual(a, atom)) {
        c += coef;
        return;
      }
    }
    terms.emplace_back(atom, coef);
  }
  void Add(const Sum& o, int64_t scale) {
    for (const auto& [a, c] : o.terms) AddTerm(a, c * scale);
    constant += o.constant * scale;
  }
  bool IsConst() const {
    return std::all_of(terms.begin(), terms.end(), [](const auto& t) { return t.second == 0; });
  }
};

// Whether integer type `t` represents `v` (64-bit types: every int64_t).
bool FitsIn(int64_t v, ir::DataType t) {
  if (t.bits >= 64) return t.is_int() || v >= 0;
  if (t.is_uint() || t.is_bool()) return v >= 0 && v < (int64_t{1} << t.bits);
  return v >= -(int64_t{1} << (t.bits - 1)) && v < (int64_t{1} << (t.bits - 1));
}

class Simplifier : public ir::IRMutator {
 public:
  explicit Simplifier(const Analyzer& an) : an_(an) {}

  using IRMutator::Mutate;

 protected:
  Expr Mutate_(const BinaryNode* op, const Expr& self) override {
    if (IsIntegerSumStep(op)) return FromSum(CanonicalOf(self).sum, op->a.type());
    Expr a = Mutate(op->a);
    Expr b = Mutate(op->b);
    ir::DataType t = a.type();
    bool integer = IsIntegerScalar(t);
    if (integer) {
      switch (op->op) {
        case BinaryOp::kFloorDiv:
        case BinaryOp::kFloorMod:
        case BinaryOp::kDiv:
        case BinaryOp::kMod:
          return DivMod(op->op, a, b, t);
        case BinaryOp::kMin:
        case BinaryOp::kMax: {
          auto ba = an_.ConstBound(a), bb = an_.ConstBound(b);
          if (ba && bb) {
            bool a_le_b = ba->max <= bb->min, b_le_a = bb->max <= ba->min;
            if (op->op == BinaryOp::kMin && a_le_b) return a;
            if (op->op == BinaryOp::kMin && b_le_a) return b;
            if (op->op == BinaryOp::kMax && a_le_b) return b;
            if (op->op == BinaryOp::kMax && b_le_a) return a;
          }
          break;
        }
        default:
          break;
      }
    }
    if (ir::IsComparison(op->op) && integer) {
      // Compare a - b with zero using bounds.
      Sum diff = ToSum(a);
      diff.Add(ToSum(b), -1);
      Expr d = FromSum(diff, t);
      if (auto bd = an_.ConstBound(d)) {
        std::optional<bool> known;
        switch (op->op) {
          case BinaryOp::kLT:
            if (bd->max < 0) known = true;
            if (bd->min >= 0) known = false;
            break;
          case BinaryOp::kLE:
            if (bd->max <= 0) known = true;
            if (bd->min > 0) known = false;
            break;
          case BinaryOp::kGT:
            if (bd->min > 0) known = true;
            if (bd->max <= 0) known = false;
            break;
          case BinaryOp::kGE:
            if (bd->min >= 0) known = true;
            if (bd->max < 0) known = false;
            break;
          case BinaryOp::kEQ:
            if (bd->min == 0 && bd->max == 0) known = true;
            if (bd->min > 0 || bd->max < 0) known = false;
            break;
          case BinaryOp::kNE:
            if (bd->min > 0 || bd->max < 0) known = true;
            if (bd->min == 0 && bd->max == 0) known = false;
            break;
          default:
            break;
        }
        if (known) return ir::IntImmNode::Make(ir::DataType::Bool(), *known);
      }
    }
    switch (op->op) {
      case BinaryOp::kAnd:
        return a && b;
      case BinaryOp::kOr:
        return a || b;
      default:
        break;
    }
    if (a.same_as(op->a) && b.same_as(op->b)) {
      // Still fold constants of floats etc. (the operators fold what they can).
      const bool folds =
          op->op == BinaryOp::kAdd || op->op == BinaryOp::kSub || op->op == BinaryOp::kMul;
      if (!folds) return self;
    }
    return Rebuild(op->op, a, b);
  }

  Expr Mutate_(const ir::NotNode* op, const Expr& self) override {
    Expr a = Mutate(op->a);
    return a.same_as(op->a) ? self : !a;
  }

  // An integer constant converted to an integer type that holds it is that constant, and an
  // integer zero converted to a floating-point type is 0.0 (a padding's zero, widened before a
  // multiply-add).
  Expr Mutate_(const ir::CastNode* op, const Expr& self) override {
    Expr v = Mutate(op->value);
    const int64_t* c = ir::AsConstInt(v);
    if (c != nullptr && op->type.is_scalar() && op->type.is_integral() && FitsIn(*c, op->type)) {
      return ir::IntImmNode::Make(op->type, *c);
    }
    if (c != nullptr && *c == 0 && op->type.is_scalar() && op->type.is_float()) {
      return ir::FloatImmNode::Make(op->type, 0.0);
    }
    return v.same_as(op->value) ? self : ir::CastNode::Make(op->type, v);
  }

  Expr Mutate_(const ir::SelectNode* op, const Expr& self) override {
    Expr c = Mutate(op->cond);
    if (const int64_t* v = ir::AsConstInt(c)) {
      return Mutate(*v ? op->true_value : op->false_value);
    }
    return IRMutator::Mutate_(op, self);
  }

  Expr Mutate_(const ir::CallNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* call = e.as<ir::CallNode>();
    if (call != nullptr && call->name == "likely" && ir::AsConstInt(call->args[0]) != nullptr) {
      return call->args[0];
    }
    return e;
  }

 private:
  static Expr Rebuild(BinaryOp op, Expr a, Expr b) {
    switch (op) {
      case BinaryOp::kAdd:
        return a + b;
      case BinaryOp::kSub:
        return a - b;
      case BinaryOp::kMul:
        return a * b;
      case BinaryOp::kDiv:
        return a / b;
      case BinaryOp::kMod:
        return a % b;
      case BinaryOp::kFloorDiv:
        return ir::floordiv(a, b);
      case BinaryOp::kFloorMod:
        return ir::floormod(a, b);
      case BinaryOp::kMin:
        return ir::min(a, b);
      case BinaryOp::kMax:
        return ir::max(a, b);
      case BinaryOp::kLT:
        return a < b;
      case BinaryOp::kLE:
        return a <= b;
      case BinaryOp::kGT:
        return a > b;
      case BinaryOp::kGE:
        return a >= b;
      case BinaryOp::kEQ:
        return ir::eq(a, b);
      case BinaryOp::kNE:
        return ir::ne(a, b);
      case BinaryOp::kAnd:
        return a && b;
      case BinaryOp::kOr:
        return a || b;
    }
    return Expr();
  }

  static bool IsIntegerScalar(ir::DataType t) {
    return (t.is_int() || t.is_uint()) && t.is_scalar();
  }

  // An integer +, - or ×: one step of a sum that Mutate_ canonicalizes.
  static bool IsIntegerSumStep(const BinaryNode* op) {
    return op != nullptr &&
           (op->op == BinaryOp::kAdd || op->op == BinaryOp::kSub || op->op == BinaryOp::kMul) &&
           IsIntegerScalar(op->a.type());
  }

  // A simplified integer expression as a canonical sum, with the expression itself when it is
  // at hand (a nested sum's is built from its sum only where an operand needs it).
  struct Canonical {
    Sum sum;
    Expr expr;  // Undefined: FromSum(sum).
  };

  static Expr ExprOf(const Canonical& c, ir::DataType t) {
    return c.expr.defined() ? c.expr : FromSum(c.sum, t);
  }

  // ToSum(Mutate(e)), computed without building the canonical expression of every nested sum:
  // each +, - or × of an integer chain combines its operands' sums and folds div/mod pairs, as
  // Mutate_ would at that step, and passes the sum up (what ToSum would read back from the step's
  // canonical expression: its terms in order, zero terms left out). A chain of n terms then costs
  // n sums, not n expressions of up to n terms built and decomposed again (an unrolled body's
  // flattened indices, simplified at the end of every lowering).
  Canonical CanonicalOf(const Expr& e) {
    const auto* op = e.as<BinaryNode>();
    if (!IsIntegerSumStep(op)) {
      Expr m = Mutate(e);
      return {ToSum(m), m};
    }
    Canonical a = CanonicalOf(op->a);
    Canonical b = CanonicalOf(op->b);
    Sum& s = a.sum;
    if (!CombineSums(op->op, &s, b.sum)) {
      Expr product =
          BinaryNode::Make(BinaryOp::kMul, ExprOf(a, op->a.type()), ExprOf(b, op->b.type()));
      s = Sum();
      s.AddTerm(product, 1);
    }
    FoldDivMod(&s);
    s.terms.erase(std::remove_if(s.terms.begin(), s.terms.end(),
                                 [](const auto& term) { return term.second == 0; }),
                  s.terms.end());
    return {std::move(a.sum), Expr()};
  }

  // `*a` op `b` for op +, - or ×, into *a; false, leaving *a as it was, for a product of two sums
  // neither of which is a constant (no longer a linear sum: the product is a term of its own).
  static bool CombineSums(BinaryOp op, Sum* a, const Sum& b) {
    if (op == BinaryOp::kAdd || op == BinaryOp::kSub) {
      a->Add(b, op == BinaryOp::kAdd ? 1 : -1);
      return true;
    }
    Sum scaled;
    if (b.IsConst()) {
      scaled.Add(*a, b.constant);
    } else if (a->IsConst()) {
      scaled.Add(b, a->constant);
    } else {
      return false;
    }
    *a = std::move(scaled);
    return true;
  }

  // Decomposes an (already simplified) integer expression into a Sum.
  Sum ToSum(const Expr& e) const {
    Sum s;
    if (const int64_t* c = ir::AsConstInt(e)) {
      s.constant = *c;
      return s;
    }
    const auto* op = e.as<BinaryNode>();
    if (op != nullptr &&
        (op->op == BinaryOp::kAdd || op->op == BinaryOp::kSub || op->op == BinaryOp::kMul)) {
      s = ToSum(op->a);
      if (CombineSums(op->op, &s, ToSum(op->b))) return s;
      s = Sum();
    }
    s.AddTerm(e, 1);
    return s;
  }

  // c·k·floordiv(x, c) + k·floormod(x, c) = k·x, for any x and c > 0: the two halves of an
  // index that a fused axis split back into its parts (a row of an image's pixels and their
  // channels, read as one run). Repeated while a pair is found (x may hold another pair).
  void FoldDivMod(Sum* s) const {
    for (bool folded = true; folded;) {
      folded = false;
      for (size_t i = 0; i < s->terms.size() && !folded; ++i) {
        const auto* mod = s->terms[i].first.as<BinaryNode>();
        if (mod == nullptr || mod->op != BinaryOp::kFloorMod) continue;
        const int64_t* c = ir::AsConstInt(mod->b);
        if (c == nullptr || *c <= 0) continue;
        const int64_t k = s->terms[i].second;
        int64_t kc = 0;  // The floordiv's coefficient that pairs with it (none on overflow).
        if (__builtin_mul_overflow(k, *c, &kc)) continue;
        for (size_t j = 0; j < s->terms.size(); ++j) {
          const auto* div = s->terms[j].first.as<BinaryNode>();
          if (div == nullptr || div->op != BinaryOp::kFloorDiv || s->terms[j].second != kc ||
              !ir::StructuralEqual(div->b, mod->b) || !ir::StructuralEqual(div->a, mod->a)) {
            continue;
          }
          const Expr x = mod->a;
          s->terms.erase(s->terms.begin() + std::max(i, j));
          s->terms.erase(s->terms.begin() + std::min(i, j));
          s->Add(ToSum(x), k);
          folded = true;
          break;
        }
      }
    }
  }

  static Expr FromSum(const Sum& s, ir::DataType t) {
    Expr out;
    for (const auto& [atom, coef] : s.terms) {
      if (coef == 0) continue;
      Expr term = coef == 1 ? atom : atom * ir::MakeConst(t, static_cast<double>(coef));
      if (!out.defined()) {
        out = coef == -1 ? ir::MakeConst(t, 0) - atom : term;
      } else if (coef < 0) {
        out = out - (coef == -1 ? atom : atom * ir::MakeConst(t, static_cast<double>(-coef)));
      } else {
        out = out + term;
      }
    }
    if (!out.defined()) return ir::MakeConst(t, static_cast<double>(s.constant));
    if (s.constant > 0) out = out + ir::MakeConst(t, static_cast<double>(s.constant));
    if (s.constant < 0) out = out - ir::MakeConst(t, static_cast<double>(-s.constant));
    return out;
  }

  Expr DivMod(BinaryOp op, const Expr& a, const Expr& b, ir::DataType t) const {
    const int64_t* c = ir::AsConstInt(b);
    if (c == nullptr || *c <= 0) return Rebuild(op, a, b);
    int64_t d = *c;
    Sum s = ToSum(a);
    // Split into a part divisible by d and a remainder.
    Sum q, r;
    for (const auto& [atom, coef] : s.terms) {
      if (coef % d == 0) {
        q.AddTerm(atom, coef / d);
      } else {
        r.AddTerm(atom, coef);
      }
    }
    int64_t cq = FloorDiv(s.constant, d);
    q.constant = cq;
    r.constant = s.constant - cq * d;
    Expr rem = FromSum(r, t);
    auto rb = an_.ConstBound(rem);
    bool nonneg = [&] {
      auto ab = an_.ConstBound(a);
      return ab && ab->min >= 0;
    }();
    // Truncating div/mod equal floor ones for non-negative dividends.
    bool floor_ok = op == BinaryOp::kFloorDiv || op == BinaryOp::kFloorMod || nonneg;
    if (floor_ok && rb && rb->min >= 0 && rb->max < d) {
      bool is_div = op == BinaryOp::kFloorDiv || op == BinaryOp::kDiv;
      return is_div ? FromSum(q, t) : rem;
    }
    if (floor_ok && rb) {
      // floordiv(q*d + r, d) = q + floordiv(r, d) always holds.
      bool is_div = op == BinaryOp::kFloorDiv || op == BinaryOp::kDiv;
      if (is_div && !q.terms.empty()) {
        Expr inner = FromSum(r, t);
        return FromSum(q, t) + ir::floordiv(inner, b);
      }
      if (!is_div && !q.terms.empty()) return ir::floormod(FromSum(r, t), b);
    }
    return Rebuild(op, a, b);
  }

  const Analyzer& an_;
};

IntBound Mul(IntBound a, IntBound b) {
  int64_t c[4] = {a.min * b.min, a.min * b.max, a.max * b.min, a.max * b.max};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

}  // namespace

void Analyzer::Bind(const ir::VarNode* v, int64_t min, int64_t extent) {
  bounds_[v] = IntBound{min, min + std::max<int64_t>(extent, 1) - 1};
}

void Analyzer::Bind(const ir::Var& v, const Expr& min, const Expr& extent) {
  const int64_t* mn = ir::AsConstInt(min);
  const int64_t* ext = ir::AsConstInt(extent);
  if (mn != nullptr && ext != nullptr) {
    Bind(v.get(), *mn, *ext);
  } else {
    Unbind(v.get());
  }
}

void Analyzer::Unbind(const ir::VarNode* v) { bounds_.erase(v); }

std::optional<IntBound> Analyzer::ConstBound(const Expr& e) const {
  if (!e.defined()) return std::nullopt;
  if (const int64_t* c = ir::AsConstInt(e)) return IntBound{*c, *c};
  if (const auto* v = e.as<ir::VarNode>()) {
    auto it = bounds_.find(v);
    if (it == bounds_.end()) return std::nullopt;
    return it->second;
  }
  if (const auto* call = e.as<ir::CallNode>(); call != nullptr && call->name == "likely") {
    return ConstBound(call->args[0]);
  }
  if (const auto* cast = e.as<ir::CastNode>(); cast != nullptr && cast->type.is_integral()) {
    return ConstBound(cast->value);
  }
  if (const auto* sel = e.as<ir::SelectNode>()) {
    auto t = ConstBound(sel->true_value), f = ConstBound(sel->false_value);
    if (!t || !f) return std::nullopt;
    return IntBound{std::min(t->min, f->min), std::max(t->max, f->max)};
  }
  const auto* op = e.as<BinaryNode>();
  if (op == nullptr) return std::nullopt;
  if (ir::IsComparison(op->op) || ir::IsLogical(op->op)) return IntBound{0, 1};
  auto a = ConstBound(op->a);
  auto b = ConstBound(op->b);
  if (!a || !b) {
    // floormod(x, c) is in [0, c) whatever x is.
    if (b && (op->op == BinaryOp::kFloorMod) && b->min == b->max && b->min > 0) {
      return IntBound{0, b->min - 1};
    }
    return std::nullopt;
  }
  switch (op->op) {
    case BinaryOp::kAdd:
      return IntBound{a->min + b->min, a->max + b->max};
    case BinaryOp::kSub:
      return IntBound{a->min - b->max, a->max - b->min};
    case BinaryOp::kMul:
      return Mul(*a, *b);
    case BinaryOp::kMin:
      return IntBound{std::min(a->min, b->min), std::min(a->max, b->max)};
    case BinaryOp::kMax:
      return IntBound{std::max(a->min, b->min), std::max(a->max, b->max)};
    case BinaryOp::kFloorDiv:
    case BinaryOp::kDiv:
      if (b->min == b->max && b->min > 0) {
        if (op->op == BinaryOp::kDiv && a->min < 0) return std::nullopt;
        return IntBound{FloorDiv(a->min, b->min), FloorDiv(a->max, b->min)};
      }
      return std::nullopt;
    case BinaryOp::kFloorMod:
    case BinaryOp::kMod:
      if (b->min == b->max && b->min > 0) {
        if (a->min >= 0 && a->max < b->min) return *a;
        if (op->op == BinaryOp::kMod && a->min < 0) return std::nullopt;
        return IntBound{0, b->min - 1};
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

bool Analyzer::CanProve(const Expr& cond) const {
  Expr s = Simplify(cond);
  const int64_t* v = ir::AsConstInt(s);
  return v != nullptr && *v != 0;
}

Expr Analyzer::Simplify(const Expr& e) const { return Simplifier(*this).Mutate(e); }

}  // namespace tunefarm::arith
