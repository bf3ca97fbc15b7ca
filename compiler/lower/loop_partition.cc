#include "compiler/lower/loop_partition.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/lower/simplify.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using ir::Stmt;

void Conjuncts(const Expr& e, std::vector<Expr>* out) {
  if (const auto* b = e.as<ir::BinaryNode>(); b != nullptr && b->op == ir::BinaryOp::kAnd) {
    Conjuncts(b->a, out);
    Conjuncts(b->b, out);
    return;
  }
  out->push_back(e);
}

// Whether a select guards a load with its condition (a padding's bounds).
bool GuardsLoad(const ir::SelectNode* op) {
  return ir::ContainsLoad(op->true_value) || ir::ContainsLoad(op->false_value);
}

// Conjuncts of every likely() condition in a statement and, when `selects`, of the conditions
// of the selects that guard a load.
class GuardCollector : public ir::IRVisitor {
 public:
  explicit GuardCollector(bool selects) : selects_(selects) {}
  std::vector<Expr> conds;
  std::vector<bool> from_select;  // Per condition: whether a select's (else a likely()'s).

 protected:
  void Visit_(const ir::CallNode* op) override {
    if (op->name == "likely") Add(op->args[0], false);
    IRVisitor::Visit_(op);
  }
  void Visit_(const ir::SelectNode* op) override {
    if (selects_ && GuardsLoad(op)) Add(op->cond, true);
    IRVisitor::Visit_(op);
  }

 private:
  void Add(const Expr& cond, bool select) {
    Conjuncts(cond, &conds);
    from_select.resize(conds.size(), select);
  }

 private:
  const bool selects_;
};

// `cond` without the conjuncts structurally equal to `c`; nullopt when it has none.
std::optional<Expr> WithoutConjunct(const Expr& cond, const Expr& c) {
  std::vector<Expr> parts;
  Conjuncts(cond, &parts);
  Expr out = ir::IntImmNode::Make(ir::DataType::Bool(), 1);
  bool changed = false;
  for (const Expr& p : parts) {
    if (ir::StructuralEqual(p, c)) {
      changed = true;
      continue;
    }
    out = out && p;
  }
  if (!changed) return std::nullopt;
  return out;
}

// Replaces one conjunct (structurally) by true inside likely() conditions and, when `selects`,
// in the conditions of the selects that guard a load (those GuardCollector collects).
class ReplaceConjunct : public ir::IRMutator {
 public:
  ReplaceConjunct(const Expr& c, bool selects) : c_(c), selects_(selects) {}

 protected:
  Expr Mutate_(const ir::CallNode* op, const Expr& self) override {
    if (op->name != "likely") return IRMutator::Mutate_(op, self);
    std::optional<Expr> rest = WithoutConjunct(op->args[0], c_);
    return rest ? ir::likely(*rest) : self;
  }
  Expr Mutate_(const ir::SelectNode* op, const Expr& self) override {
    if (!selects_ || !GuardsLoad(op)) return IRMutator::Mutate_(op, self);
    std::optional<Expr> rest = WithoutConjunct(op->cond, c_);
    if (!rest) return IRMutator::Mutate_(op, self);
    return ir::SelectNode::Make(*rest, Mutate(op->true_value), Mutate(op->false_value));
  }

 private:
  const Expr& c_;
  const bool selects_;
};

// The terms of a sum through + and -, with their signs.
void SignedTerms(const Expr& e, int sign, std::vector<std::pair<int, Expr>>* out) {
  if (const auto* b = e.as<ir::BinaryNode>();
      b != nullptr && (b->op == ir::BinaryOp::kAdd || b->op == ir::BinaryOp::kSub)) {
    SignedTerms(b->a, sign, out);
    SignedTerms(b->b, b->op == ir::BinaryOp::kAdd ? sign : -sign, out);
    return;
  }
  out->emplace_back(sign, e);
}

// A comparison `a op b` as an expression that is >= 0 exactly where it holds, over the
// integers. One term ±floordiv(e, c) in it (c > 0 a constant) becomes a bound on e itself,
// which stays linear where e is: floordiv(e, c) + r >= 0 ⇔ e + c·r >= 0, and
// r - floordiv(e, c) >= 0 ⇔ c·r + c - 1 - e >= 0.
std::optional<Expr> NonNegativeWhere(ir::BinaryOp op, const Expr& a, const Expr& b) {
  Expr x;
  switch (op) {
    case ir::BinaryOp::kGE:
      x = a - b;
      break;
    case ir::BinaryOp::kGT:
      x = a - b - 1;
      break;
    case ir::BinaryOp::kLE:
      x = b - a;
      break;
    case ir::BinaryOp::kLT:
      x = b - a - 1;
      break;
    default:
      return std::nullopt;
  }
  std::vector<std::pair<int, Expr>> terms;
  SignedTerms(x, 1, &terms);
  int found = -1;
  for (int i = 0; i < static_cast<int>(terms.size()); ++i) {
    const auto* d = terms[i].second.as<ir::BinaryNode>();
    const int64_t* c = d == nullptr ? nullptr : ir::AsConstInt(d->b);
    if (d == nullptr || d->op != ir::BinaryOp::kFloorDiv || c == nullptr || *c <= 0) continue;
    if (found >= 0) return x;  // Two of them: left as it is.
    found = i;
  }
  if (found < 0) return x;
  Expr r(0);
  for (int i = 0; i < static_cast<int>(terms.size()); ++i) {
    if (i != found) r = terms[i].first > 0 ? r + terms[i].second : r - terms[i].second;
  }
  const auto* d = terms[found].second.as<ir::BinaryNode>();
  const int64_t c = *ir::AsConstInt(d->b);
  const Expr c_e(static_cast<int>(c));
  return terms[found].first > 0 ? d->a + r * c_e : r * c_e + static_cast<int>(c - 1) - d->a;
}

// Coefficient of `v` in a linear expression, with the rest; nullopt when not linear in v.
std::optional<std::pair<int64_t, Expr>> LinearIn(const Expr& e, const ir::VarNode* v) {
  if (const auto* var = e.as<ir::VarNode>(); var == v) return std::make_pair(int64_t{1}, Expr(0));
  const auto* b = e.as<ir::BinaryNode>();
  bool uses = false;
  {
    class Uses : public ir::IRVisitor {
     public:
      const ir::VarNode* v;
      bool found = false;
      void Visit_(const ir::VarNode* op) override { found |= op == v; }
    } u;
    u.v = v;
    u.Visit(e);
    uses = u.found;
  }
  if (!uses) return std::make_pair(int64_t{0}, e);
  if (b == nullptr) return std::nullopt;
  auto a = LinearIn(b->a, v);
  auto c = LinearIn(b->b, v);
  if (!a || !c) return std::nullopt;
  switch (b->op) {
    case ir::BinaryOp::kAdd:
      return std::make_pair(a->first + c->first, a->second + c->second);
    case ir::BinaryOp::kSub:
      return std::make_pair(a->first - c->first, a->second - c->second);
    case ir::BinaryOp::kMul: {
      const int64_t* ka = ir::AsConstInt(b->a);
      const int64_t* kc = ir::AsConstInt(b->b);
      if (kc != nullptr) return std::make_pair(a->first * *kc, a->second * b->b);
      if (ka != nullptr) return std::make_pair(c->first * *ka, b->a * c->second);
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

// Replaces by its false value every select that guards a load and has `c` among the conjuncts
// of its condition: the statement as it runs where `c` fails.
class FailConjunct : public ir::IRMutator {
 public:
  explicit FailConjunct(const Expr& c) : c_(c) {}

 protected:
  Expr Mutate_(const ir::SelectNode* op, const Expr& self) override {
    if (GuardsLoad(op) && WithoutConjunct(op->cond, c_).has_value()) {
      return Mutate(op->false_value);
    }
    return IRMutator::Mutate_(op, self);
  }

 private:
  const Expr& c_;
};

// The variables of the loops in a statement.
absl::flat_hash_set<const ir::VarNode*> LoopVarsOf(const Stmt& s) {
  class Collector : public ir::IRVisitor {
   public:
    absl::flat_hash_set<const ir::VarNode*> vars;
    void Visit_(const ir::ForNode* op) override {
      vars.insert(op->var.get());
      IRVisitor::Visit_(op);
    }
  } c;
  c.Visit(s);
  return c.vars;
}

bool Replicated(ir::ForKind kind) {
  return kind == ir::ForKind::kUnrolled || kind == ir::ForKind::kVectorized;
}

// Whether a select's condition `cond` can be checked once per iteration of loop `r` instead of
// partitioning the loops around r on it (see Partitioner): r is a serial loop with the
// partition_selects pragma, not inside a replicated (unrolled, vectorized) loop, with loops in
// its body (a reduction's outer loop: a filter's rows around the register tile, not a loop of
// the tile); cond reads r and otherwise only variables bound outside r, at least one of them
// (a constant bound is split on for free); and where cond fails, r's body does nothing (every
// select it is a conjunct of adds a zero, dropped by the simplifier).
bool Hoistable(const ir::ForNode* r, const Expr& cond, bool inside_replicated) {
  if (inside_replicated || r->for_kind != ir::ForKind::kSerial ||
      r->pragmas.count(schedule::kPartitionSelectsPragma) == 0 ||
      ir::AsConstInt(r->min) == nullptr || ir::AsConstInt(r->extent) == nullptr ||
      ir::ContainsLoad(cond)) {
    return false;
  }
  const absl::flat_hash_set<const ir::VarNode*> vars = ir::VarsOf(cond);
  if (!vars.contains(r->var.get()) || vars.size() < 2) return false;
  // Linear in r, as the partitioner needs to bound it (a bound it cannot read is split on by
  // the outer loops, as before).
  const auto* cmp = cond.as<ir::BinaryNode>();
  if (cmp == nullptr) return false;
  std::optional<Expr> diff = NonNegativeWhere(cmp->op, cmp->a, cmp->b);
  if (!diff) return false;
  std::optional<std::pair<int64_t, Expr>> lin = LinearIn(*diff, r->var.get());
  if (!lin || lin->first == 0) return false;
  const absl::flat_hash_set<const ir::VarNode*> inner = LoopVarsOf(r->body);
  if (inner.empty()) return false;
  for (const ir::VarNode* v : vars) {
    if (inner.contains(v)) return false;
  }
  return ir::IsNoOp(Simplify(FailConjunct(cond).Mutate(r->body)));
}

// Whether `cond` is Hoistable at some loop inside `s`.
bool HoistableInside(const Stmt& s, const Expr& cond, bool inside_replicated) {
  class Finder : public ir::IRVisitor {
   public:
    Finder(const Expr& cond, bool replicated) : cond_(cond), replicated_(replicated ? 1 : 0) {}
    bool found = false;
    void Visit_(const ir::ForNode* op) override {
      if (found) return;
      if (Hoistable(op, cond_, replicated_ > 0)) {
        found = true;
        return;
      }
      replicated_ += Replicated(op->for_kind);
      IRVisitor::Visit_(op);
      replicated_ -= Replicated(op->for_kind);
    }

   private:
    const Expr& cond_;
    int replicated_;
  } f(cond, inside_replicated);
  f.Visit(s);
  return f.found;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The longest edge of a loop that is peeled into single iterations (see Partitioner).
constexpr int64_t kMaxPeeled = 8;

class Partitioner : public ir::IRMutator {
 public:
  using IRMutator::Mutate;

 protected:
  Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
    const int64_t* mn = ir::AsConstInt(op->min);
    const int64_t* ext = ir::AsConstInt(op->extent);
    if (mn == nullptr || ext == nullptr || op->for_kind == ir::ForKind::kThreadBinding) {
      return IRMutator::Mutate_(op, self);
    }
    an_.Bind(op->var.get(), *mn, *ext);
    BindInnerLoops(op->body);
    Stmt body = op->body;
    const bool selects = op->pragmas.count(schedule::kPartitionSelectsPragma) > 0;
    GuardCollector gc(selects);
    gc.Visit(body);
    // Conditions checked once per iteration of this loop (Hoistable), proven in its body.
    std::vector<Expr> hoisted;
    for (size_t ci = 0; ci < gc.conds.size(); ++ci) {
      const Expr& cond = gc.conds[ci];
      // A padding's bound on a filter's row that an inner loop can check once per row (a
      // convolution's output rows, whose edges would otherwise be copies of the whole tile
      // row): left to that loop.
      if (gc.from_select[ci] &&
          HoistableInside(body, cond, replicated_ > 0 || Replicated(op->for_kind))) {
        continue;
      }
      // Normalize to diff >= 0.
      const auto* cmp = cond.as<ir::BinaryNode>();
      if (cmp == nullptr) continue;
      std::optional<Expr> diff = NonNegativeWhere(cmp->op, cmp->a, cmp->b);
      if (!diff) continue;
      auto lin = LinearIn(*diff, op->var.get());
      if (!lin || lin->first == 0) continue;
      auto rest = an_.ConstBound(an_.Simplify(lin->second));
      if (!rest) {
        if (gc.from_select[ci] && Hoistable(op, cond, replicated_ > 0)) hoisted.push_back(cond);
        continue;
      }
      int64_t k = lin->first, dmin = rest->min;
      int64_t lo = *mn, hi = *mn + *ext;  // [lo, hi)
      // Holds where k*v + dmin >= 0.
      int64_t split;
      bool main_first;
      if (k > 0) {
        split = -FloorDiv(dmin, k);  // v >= ceil(-dmin / k)
        main_first = false;
      } else {
        split = FloorDiv(dmin, -k) + 1;  // v <= floor(dmin / -k)
        main_first = true;
      }
      split = std::max(lo, std::min(hi, split));
      bool main_everywhere = main_first ? split == hi : split == lo;
      bool tail_everywhere = main_first ? split == lo : split == hi;
      // A select's condition that holds in some iterations of the edge but not for every
      // inner iteration (a strided window: row 0 reads 3 taps of padding, row 1 one) is
      // decided only iteration by iteration: a short edge is peeled into single iterations,
      // in which the inner loops are partitioned on it with this variable fixed.
      const bool peel = gc.from_select[ci] && op->for_kind != ir::ForKind::kVectorized;
      if (!main_everywhere && rest->min != rest->max && gc.from_select[ci] &&
          Hoistable(op, cond, replicated_ > 0)) {
        // Proven in the body once no other condition splits this loop (a split's parts
        // hoist it again).
        hoisted.push_back(cond);
        continue;
      }
      if (tail_everywhere) {
        if (peel && *ext > 1 && *ext <= kMaxPeeled) return PeelAll(op, lo, hi, body);
        continue;
      }
      Stmt proven = ReplaceConjunct(cond, selects).Mutate(body);
      if (main_everywhere) {
        body = proven;
        continue;
      }
      std::vector<Stmt> parts;
      auto add_edge = [&](int64_t from, int64_t to) {
        if (peel && to - from <= kMaxPeeled) {
          for (int64_t v = from; v < to; ++v) parts.push_back(MakeLoop(op, v, 1, body));
        } else {
          parts.push_back(MakeLoop(op, from, to - from, body));
        }
      };
      if (main_first) {
        parts.push_back(MakeLoop(op, lo, split - lo, proven));
        add_edge(split, hi);
      } else {
        add_edge(lo, split);
        parts.push_back(MakeLoop(op, split, hi - split, proven));
      }
      an_.Unbind(op->var.get());
      // Recurse: each part may have more conditions to split on.
      std::vector<Stmt> done;
      for (const Stmt& p : parts) done.push_back(Mutate(p));
      return ir::SeqNode::Make(std::move(done));
    }
    if (!hoisted.empty()) {
      Expr all = hoisted[0];
      for (size_t i = 0; i < hoisted.size(); ++i) {
        body = ReplaceConjunct(hoisted[i], selects).Mutate(body);
        if (i > 0) all = all && hoisted[i];
      }
      body = ir::IfThenElseNode::Make(all, body);
    }
    replicated_ += Replicated(op->for_kind);
    body = Mutate(body);
    replicated_ -= Replicated(op->for_kind);
    an_.Unbind(op->var.get());
    if (body.same_as(op->body)) return self;
    return ir::ForNode::Make(op->var, op->min, op->extent, op->for_kind, body, op->thread_tag,
                             op->pragmas);
  }

 private:
  // Every iteration of [lo, hi) as a loop of its own, each partitioned in turn.
  Stmt PeelAll(const ir::ForNode* op, int64_t lo, int64_t hi, const Stmt& body) {
    an_.Unbind(op->var.get());
    std::vector<Stmt> done;
    for (int64_t v = lo; v < hi; ++v) done.push_back(Mutate(MakeLoop(op, v, 1, body)));
    return ir::SeqNode::Make(std::move(done));
  }

  static Stmt MakeLoop(const ir::ForNode* op, int64_t min, int64_t extent, Stmt body) {
    return ir::ForNode::Make(op->var, Expr(static_cast<int>(min)), Expr(static_cast<int>(extent)),
                             op->for_kind, std::move(body), op->thread_tag, op->pragmas);
  }

  void BindInnerLoops(const Stmt& s) {
    class Binder : public ir::IRVisitor {
     public:
      arith::Analyzer* an;
      void Visit_(const ir::ForNode* op) override {
        an->Bind(op->var, op->min, op->extent);
        IRVisitor::Visit_(op);
      }
    } b;
    b.an = &an_;
    b.Visit(s);
  }

  arith::Analyzer an_;
  int replicated_ = 0;  // Replicated loops around the one being partitioned.
};

}  // namespace

Stmt LoopPartition(Stmt s) { return Partitioner().Mutate(s); }

}  // namespace tunefarm::lower
