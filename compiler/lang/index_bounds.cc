#include "compiler/lang/index_bounds.h"

#include <algorithm>
#include <limits>

#include "compiler/lang/printer.h"

namespace tunefarm::lang {
namespace {

constexpr int64_t kLowest = std::numeric_limits<int64_t>::min();
constexpr int64_t kHighest = std::numeric_limits<int64_t>::max();

bool IsComparison(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
}

// The comparison that holds when `op` does not.
std::string Negated(const std::string& op) {
  if (op == "<") return ">=";
  if (op == "<=") return ">";
  if (op == ">") return "<=";
  if (op == ">=") return "<";
  if (op == "==") return "!=";
  return "==";
}

// `a op b` read from b's side: a < b is b > a.
std::string Mirrored(const std::string& op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;
}

// What `x op (a value in other)` says about x; nullopt when nothing.
std::optional<Interval> Implied(const std::string& op, const Interval& other) {
  if (op == "<" && other.max != kLowest) return Interval{kLowest, other.max - 1};
  if (op == "<=") return Interval{kLowest, other.max};
  if (op == ">" && other.min != kHighest) return Interval{other.min + 1, kHighest};
  if (op == ">=") return Interval{other.min, kHighest};
  if (op == "==") return other;
  return std::nullopt;
}

// Interval arithmetic on the four corners; nullopt on int64 overflow.
template <typename F>
std::optional<Interval> Corners(const Interval& a, const Interval& b, F op) {
  int64_t lo = kHighest, hi = kLowest;
  for (int64_t x : {a.min, a.max}) {
    for (int64_t y : {b.min, b.max}) {
      std::optional<int64_t> v = op(x, y);
      if (!v.has_value()) return std::nullopt;
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
    }
  }
  return Interval{lo, hi};
}

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

void IndexBounds::BindVar(const std::string& name, int64_t extent) { vars_[name] = extent; }

int IndexBounds::Assume(const Node& cond, bool holds) {
  if (cond.kind == Node::Kind::kUnary && cond.name == "!") return Assume(*cond.args[0], !holds);
  if (cond.kind != Node::Kind::kBinary) return 0;
  if (cond.name == "&&" && holds) return Assume(*cond.args[0], true) + Assume(*cond.args[1], true);
  if (cond.name == "||" && !holds) {
    return Assume(*cond.args[0], false) + Assume(*cond.args[1], false);
  }
  if (!IsComparison(cond.name)) return 0;
  const std::string op = holds ? cond.name : Negated(cond.name);
  int facts = 0;
  const Node& lhs = *cond.args[0];
  const Node& rhs = *cond.args[1];
  if (std::optional<Interval> r = Bound(rhs)) {
    if (std::optional<Interval> fact = Implied(op, *r)) {
      facts_.emplace_back(ExprText(lhs), *fact);
      ++facts;
    }
  }
  if (std::optional<Interval> l = Bound(lhs)) {
    if (std::optional<Interval> fact = Implied(Mirrored(op), *l)) {
      facts_.emplace_back(ExprText(rhs), *fact);
      ++facts;
    }
  }
  return facts;
}

void IndexBounds::Forget(int facts) {
  facts_.resize(facts_.size() - std::min<size_t>(facts, facts_.size()));
}

std::optional<Interval> IndexBounds::Bound(const Node& index) const {
  std::optional<Interval> out = BoundUnnarrowed(index);
  if (facts_.empty()) return out;
  const std::string text = ExprText(index);
  for (const auto& [key, fact] : facts_) {
    if (key != text) continue;
    Interval narrowed = out.value_or(Interval{kLowest, kHighest});
    narrowed.min = std::max(narrowed.min, fact.min);
    narrowed.max = std::min(narrowed.max, fact.max);
    out = narrowed;
  }
  if (out.has_value() && (out->min == kLowest || out->max == kHighest)) {
    // Only one side is known, unless the branch can never run (an empty interval).
    if (out->min <= out->max) return std::nullopt;
  }
  return out;
}

std::optional<Interval> IndexBounds::BoundUnnarrowed(const Node& n) const {
  switch (n.kind) {
    case Node::Kind::kInt:
      return Interval{n.int_value, n.int_value};
    case Node::Kind::kName: {
      if (auto it = vars_.find(n.name); it != vars_.end()) return Interval{0, it->second - 1};
      if (auto it = shapes_->find(n.name); it != shapes_->end()) {
        return Interval{it->second, it->second};
      }
      return std::nullopt;
    }
    case Node::Kind::kUnary: {
      if (n.name != "-") return std::nullopt;
      std::optional<Interval> a = Bound(*n.args[0]);
      if (!a.has_value() || a->min == kLowest) return std::nullopt;
      return Interval{-a->max, -a->min};
    }
    case Node::Kind::kBinary: {
      std::optional<Interval> a = Bound(*n.args[0]);
      std::optional<Interval> b = Bound(*n.args[1]);
      if (!a.has_value() || !b.has_value()) return std::nullopt;
      if (a->min > a->max || b->min > b->max) return Interval{1, 0};  // Never evaluated.
      auto checked = [](auto f) {
        return [f](int64_t x, int64_t y) -> std::optional<int64_t> {
          int64_t v;
          if (f(x, y, &v)) return std::nullopt;
          return v;
        };
      };
      if (n.name == "+") {
        return Corners(*a, *b, checked([](int64_t x, int64_t y, int64_t* v) {
          return __builtin_add_overflow(x, y, v);
        }));
      }
      if (n.name == "-") {
        return Corners(*a, *b, checked([](int64_t x, int64_t y, int64_t* v) {
          return __builtin_sub_overflow(x, y, v);
        }));
      }
      if (n.name == "*") {
        return Corners(*a, *b, checked([](int64_t x, int64_t y, int64_t* v) {
          return __builtin_mul_overflow(x, y, v);
        }));
      }
      if (n.name == "/") {
        if (b->min <= 0) return std::nullopt;  // Only positive divisors are bounded.
        return Corners(
            *a, *b, [](int64_t x, int64_t y) -> std::optional<int64_t> { return FloorDiv(x, y); });
      }
      if (n.name == "%") {
        if (b->min <= 0) return std::nullopt;
        if (b->min == b->max && a->min >= 0 && a->max < b->min) return a;
        return Interval{0, b->max - 1};
      }
      return std::nullopt;
    }
    case Node::Kind::kCall: {
      if ((n.name == "max" || n.name == "min") && n.args.size() == 2) {
        std::optional<Interval> a = Bound(*n.args[0]);
        std::optional<Interval> b = Bound(*n.args[1]);
        if (!a.has_value() || !b.has_value()) return std::nullopt;
        if (n.name == "max") return Interval{std::max(a->min, b->min), std::max(a->max, b->max)};
        return Interval{std::min(a->min, b->min), std::min(a->max, b->max)};
      }
      if (n.name == "select" && n.args.size() == 3) {
        std::optional<Interval> a = Bound(*n.args[1]);
        std::optional<Interval> b = Bound(*n.args[2]);
        if (!a.has_value() || !b.has_value()) return std::nullopt;
        return Interval{std::min(a->min, b->min), std::max(a->max, b->max)};
      }
      if ((n.name == "int32" || n.name == "int64") && n.args.size() == 1) {
        return Bound(*n.args[0]);
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace tunefarm::lang
