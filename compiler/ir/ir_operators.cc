#include "compiler/ir/ir_operators.h"

#include <algorithm>
#include <cmath>

#include "absl/base/internal/raw_logging.h"

namespace tunefarm::ir {
namespace {

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }

// Folds two integer constants; returns an undefined Expr when it cannot.
Expr FoldInt(BinaryOp op, DataType t, int64_t x, int64_t y) {
  switch (op) {
    case BinaryOp::kAdd:
      return IntImmNode::Make(t, x + y);
    case BinaryOp::kSub:
      return IntImmNode::Make(t, x - y);
    case BinaryOp::kMul:
      return IntImmNode::Make(t, x * y);
    case BinaryOp::kDiv:
      return y == 0 ? Expr() : IntImmNode::Make(t, x / y);
    case BinaryOp::kMod:
      return y == 0 ? Expr() : IntImmNode::Make(t, x % y);
    case BinaryOp::kFloorDiv:
      return y == 0 ? Expr() : IntImmNode::Make(t, FloorDivInt(x, y));
    case BinaryOp::kFloorMod:
      return y == 0 ? Expr() : IntImmNode::Make(t, FloorModInt(x, y));
    case BinaryOp::kMin:
      return IntImmNode::Make(t, std::min(x, y));
    case BinaryOp::kMax:
      return IntImmNode::Make(t, std::max(x, y));
    case BinaryOp::kEQ:
      return IntImmNode::Make(DataType::Bool(), x == y);
    case BinaryOp::kNE:
      return IntImmNode::Make(DataType::Bool(), x != y);
    case BinaryOp::kLT:
      return IntImmNode::Make(DataType::Bool(), x < y);
    case BinaryOp::kLE:
      return IntImmNode::Make(DataType::Bool(), x <= y);
    case BinaryOp::kGT:
      return IntImmNode::Make(DataType::Bool(), x > y);
    case BinaryOp::kGE:
      return IntImmNode::Make(DataType::Bool(), x >= y);
    case BinaryOp::kAnd:
      return IntImmNode::Make(DataType::Bool(), x && y);
    case BinaryOp::kOr:
      return IntImmNode::Make(DataType::Bool(), x || y);
  }
  return Expr();
}

// The constant of a vector of one integer constant.
const int64_t* AsBroadcastConstInt(const Expr& e) {
  const auto* b = e.as<BroadcastNode>();
  return b == nullptr ? nullptr : AsConstInt(b->value);
}

// A floating-point zero, or a vector of them.
bool IsFloatZero(const Expr& e) {
  const auto* b = e.as<BroadcastNode>();
  const auto* f = (b == nullptr ? e : b->value).as<FloatImmNode>();
  return f != nullptr && f->value == 0;
}

Expr Fold(BinaryOp op, Expr a, Expr b) {
  MatchTypes(&a, &b);
  const int64_t* x = AsConstInt(a);
  const int64_t* y = AsConstInt(b);
  if (x != nullptr && y != nullptr) {
    Expr folded = FoldInt(op, a.type(), *x, *y);
    if (folded.defined()) return folded;
  }
  const auto* fx = a.as<FloatImmNode>();
  const auto* fy = b.as<FloatImmNode>();
  if (fx != nullptr && fy != nullptr) {
    switch (op) {
      case BinaryOp::kAdd:
        return FloatImmNode::Make(a.type(), fx->value + fy->value);
      case BinaryOp::kSub:
        return FloatImmNode::Make(a.type(), fx->value - fy->value);
      case BinaryOp::kMul:
        return FloatImmNode::Make(a.type(), fx->value * fy->value);
      default:
        break;
    }
  }
  // A floating-point term multiplied by a constant zero is dropped too, as an integer's is (a
  // padding's tap): the product is taken to be zero, as under fast math's no-NaNs and
  // no-signed-zeros, so a weight of inf or NaN at a padding tap does not make the sum NaN.
  if (a.type().is_float() && (op == BinaryOp::kMul || op == BinaryOp::kAdd)) {
    const bool za = IsFloatZero(a), zb = IsFloatZero(b);
    if (op == BinaryOp::kMul && za) return a;
    if (op == BinaryOp::kMul && zb) return b;
    if (op == BinaryOp::kAdd && za) return b;
    if (op == BinaryOp::kAdd && zb) return a;
  }
  // Identities that keep index arithmetic small, and drop the terms of a sum that multiply an
  // integer zero (a padding's tap, in vectors of broadcast zeros too).
  if (a.type().is_int() || a.type().is_uint()) {
    if (x == nullptr) x = AsBroadcastConstInt(a);
    if (y == nullptr) y = AsBroadcastConstInt(b);
    if (op == BinaryOp::kAdd && x != nullptr && *x == 0) return b;
    if ((op == BinaryOp::kAdd || op == BinaryOp::kSub) && y != nullptr && *y == 0) return a;
    if (op == BinaryOp::kMul && ((x != nullptr && *x == 0) || (y != nullptr && *y == 1))) {
      return a;
    }
    if (op == BinaryOp::kMul && x != nullptr && *x == 1) return b;
    if (op == BinaryOp::kMul && y != nullptr && *y == 0) return b;
    if ((op == BinaryOp::kDiv || op == BinaryOp::kFloorDiv) && y != nullptr && *y == 1) return a;
    if ((op == BinaryOp::kMod || op == BinaryOp::kFloorMod) && y != nullptr && *y == 1) {
      return IntImmNode::Make(a.type(), 0);
    }
  }
  return BinaryNode::Make(op, std::move(a), std::move(b));
}

Expr Intrinsic(const char* name, std::vector<Expr> args) {
  DataType t = args[0].type();
  return CallNode::Make(t, name, std::move(args));
}

}  // namespace

void MatchTypes(Expr* a, Expr* b) {
  ABSL_RAW_CHECK(a->defined() && b->defined(), "operand undefined");
  DataType ta = a->type(), tb = b->type();
  if (ta == tb) return;
  // Scalar meets vector: broadcast.
  if (ta.lanes != tb.lanes) {
    if (ta.lanes == 1) *a = BroadcastNode::Make(*a, tb.lanes);
    if (tb.lanes == 1) *b = BroadcastNode::Make(*b, ta.lanes);
    ta = a->type();
    tb = b->type();
    if (ta == tb) return;
  }
  // Constants adopt the other side's type.
  auto adopt = [](Expr* c, DataType t) {
    if (const int64_t* v = AsConstInt(*c)) {
      *c = MakeConst(t, static_cast<double>(*v));
      return true;
    }
    if (const auto* f = c->as<FloatImmNode>()) {
      // A float constant becomes an integer only when it is one: 0.5 meeting an int operand
      // promotes that operand to float (below) instead of truncating to 0.
      if (!t.is_float() && !(std::isfinite(f->value) && std::trunc(f->value) == f->value)) {
        return false;
      }
      *c = MakeConst(t, f->value);
      return true;
    }
    return false;
  };
  if (ta.is_scalar() && tb.is_scalar()) {
    if ((a->as<IntImmNode>() || a->as<FloatImmNode>()) && adopt(a, tb)) return;
    if ((b->as<IntImmNode>() || b->as<FloatImmNode>()) && adopt(b, ta)) return;
  }
  // Widen integers, promote int to float.
  if (ta.is_float() != tb.is_float()) {
    if (ta.is_float()) {
      *b = CastNode::Make(ta, *b);
    } else {
      *a = CastNode::Make(tb, *a);
    }
    return;
  }
  if (ta.bits < tb.bits) {
    *a = CastNode::Make(tb, *a);
  } else {
    *b = CastNode::Make(ta, *b);
  }
}

Expr operator+(Expr a, Expr b) { return Fold(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return Fold(BinaryOp::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return Fold(BinaryOp::kMul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return Fold(BinaryOp::kDiv, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return Fold(BinaryOp::kMod, std::move(a), std::move(b)); }
Expr operator-(Expr a) { return MakeConst(a.type().element_of(), 0) - a; }
Expr floordiv(Expr a, Expr b) { return Fold(BinaryOp::kFloorDiv, std::move(a), std::move(b)); }
Expr floormod(Expr a, Expr b) { return Fold(BinaryOp::kFloorMod, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return Fold(BinaryOp::kMin, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return Fold(BinaryOp::kMax, std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return Fold(BinaryOp::kLT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return Fold(BinaryOp::kLE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return Fold(BinaryOp::kGT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return Fold(BinaryOp::kGE, std::move(a), std::move(b)); }
Expr eq(Expr a, Expr b) { return Fold(BinaryOp::kEQ, std::move(a), std::move(b)); }
Expr ne(Expr a, Expr b) { return Fold(BinaryOp::kNE, std::move(a), std::move(b)); }

Expr operator&&(Expr a, Expr b) {
  const int64_t* x = AsConstInt(a);
  const int64_t* y = AsConstInt(b);
  if (x != nullptr) return *x ? b : a;
  if (y != nullptr) return *y ? a : b;
  return BinaryNode::Make(BinaryOp::kAnd, std::move(a), std::move(b));
}

Expr operator||(Expr a, Expr b) {
  const int64_t* x = AsConstInt(a);
  const int64_t* y = AsConstInt(b);
  if (x != nullptr) return *x ? a : b;
  if (y != nullptr) return *y ? b : a;
  return BinaryNode::Make(BinaryOp::kOr, std::move(a), std::move(b));
}

Expr operator!(Expr a) {
  if (const int64_t* x = AsConstInt(a)) return IntImmNode::Make(DataType::Bool(), !*x);
  return NotNode::Make(std::move(a));
}

Expr select(Expr cond, Expr t, Expr f) {
  MatchTypes(&t, &f);
  if (const int64_t* c = AsConstInt(cond)) return *c ? t : f;
  return SelectNode::Make(std::move(cond), std::move(t), std::move(f));
}

Expr cast(DataType t, Expr v) {
  if (v.type() == t) return v;
  if (t.is_scalar()) {
    if (const int64_t* x = AsConstInt(v)) return MakeConst(t, static_cast<double>(*x));
    if (const auto* f = v.as<FloatImmNode>(); f != nullptr && t.is_float()) {
      return MakeConst(t, f->value);
    }
  }
  return CastNode::Make(t, std::move(v));
}

Expr exp(Expr x) { return Intrinsic("exp", {std::move(x)}); }
Expr log(Expr x) { return Intrinsic("log", {std::move(x)}); }
Expr sqrt(Expr x) { return Intrinsic("sqrt", {std::move(x)}); }
Expr tanh(Expr x) { return Intrinsic("tanh", {std::move(x)}); }
Expr fabs(Expr x) { return Intrinsic("fabs", {std::move(x)}); }
Expr sigmoid(Expr x) { return Intrinsic("sigmoid", {std::move(x)}); }
Expr recip(Expr x) { return Intrinsic("recip", {std::move(x)}); }
Expr pow(Expr x, Expr y) {
  MatchTypes(&x, &y);
  return Intrinsic("pow", {std::move(x), std::move(y)});
}
Expr erf(Expr x) {
  // A rational approximation in x², odd: erf(x) = x·P(x²)/Q(x²) with x clamped to ±3.92 (where
  // erf is 1 to float precision), P and Q of degree 5. The coefficients were fitted for
  // tunefarm (linearized least squares on the relative error over [0, 3.92], reweighted toward
  // minimax). Evaluated in float32: absolute error below 4e-7 (A&S 7.1.26, used before, needed
  // an exponential and a reciprocal: about 45 vector instructions per 16 lanes, this about 20).
  // Clamped with selects, so NaN stays NaN (min/max would map it to ±1); the vectorizer widens
  // them, since the branches load nothing the conditions do not.
  const DataType t = x.type();
  auto c = [&](double v) { return MakeConst(t, v); };
  const double kClamp = 3.92;
  Expr xc = select(x > c(kClamp), c(kClamp), select(x < c(-kClamp), c(-kClamp), x));
  Expr s = xc * xc;
  Expr p = c(2.050694710431511e-06);
  for (double k : {2.8483673379254074e-04, 3.763061160801347e-03, 5.274079374342972e-02,
                   1.9034536622739093e-01, 1.1283791464834787}) {
    p = p * s + c(k);
  }
  Expr q = c(3.809562635458813e-05);
  for (double k : {1.1619389535539558e-03, 1.4964059398893602e-02, 1.1408400017825994e-01,
                   5.02021938039722e-01, 1.0}) {
    q = q * s + c(k);
  }
  return xc * p * recip(q);
}
Expr likely(Expr cond) {
  if (AsConstInt(cond) != nullptr) return cond;
  DataType t = cond.type();
  return CallNode::Make(t, "likely", {std::move(cond)});
}

}  // namespace tunefarm::ir
