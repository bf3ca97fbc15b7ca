#include "compiler/lower/infer_bound.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using Interval = std::pair<Expr, Expr>;  // Inclusive [min, max].

// Symbolic interval of `e` when the variables in `relax` range over [0, extent).
std::optional<Interval> Relax(const Expr& e,
                              const absl::flat_hash_map<const ir::VarNode*, int64_t>& relax) {
  if (ir::AsConstInt(e) != nullptr) return Interval{e, e};
  if (const auto* v = e.as<ir::VarNode>()) {
    auto it = relax.find(v);
    if (it == relax.end()) return Interval{e, e};
    return Interval{Expr(0), Expr(static_cast<int>(it->second - 1))};
  }
  if (const auto* c = e.as<ir::CastNode>()) {
    auto in = Relax(c->value, relax);
    if (!in) return std::nullopt;
    return Interval{ir::cast(c->type, in->first), ir::cast(c->type, in->second)};
  }
  const auto* op = e.as<ir::BinaryNode>();
  if (op == nullptr) return std::nullopt;
  auto a = Relax(op->a, relax);
  auto b = Relax(op->b, relax);
  if (!a || !b) return std::nullopt;
  bool b_fixed = b->first.same_as(b->second);
  const int64_t* bc = ir::AsConstInt(b->first);
  switch (op->op) {
    case ir::BinaryOp::kAdd:
      return Interval{a->first + b->first, a->second + b->second};
    case ir::BinaryOp::kSub:
      return Interval{a->first - b->second, a->second - b->first};
    case ir::BinaryOp::kMul: {
      if (b_fixed && bc != nullptr) {
        if (*bc >= 0) return Interval{a->first * b->first, a->second * b->first};
        return Interval{a->second * b->first, a->first * b->first};
      }
      const int64_t* ac = ir::AsConstInt(a->first);
      if (a->first.same_as(a->second) && ac != nullptr) {
        if (*ac >= 0) return Interval{b->first * a->first, b->second * a->first};
        return Interval{b->second * a->first, b->first * a->first};
      }
      if (a->first.same_as(a->second) && b_fixed) return Interval{e, e};
      return std::nullopt;
    }
    case ir::BinaryOp::kFloorDiv:
      if (b_fixed && bc != nullptr && *bc > 0) {
        return Interval{ir::floordiv(a->first, b->first), ir::floordiv(a->second, b->first)};
      }
      return std::nullopt;
    case ir::BinaryOp::kFloorMod:
      if (b_fixed && bc != nullptr && *bc > 0) {
        if (a->first.same_as(a->second)) return Interval{e, e};
        return Interval{Expr(0), Expr(static_cast<int>(*bc - 1))};
      }
      return std::nullopt;
    case ir::BinaryOp::kMin:
      return Interval{ir::min(a->first, b->first), ir::min(a->second, b->second)};
    case ir::BinaryOp::kMax:
      return Interval{ir::max(a->first, b->first), ir::max(a->second, b->second)};
    default:
      return std::nullopt;
  }
}

// Collects the index lists of loads of one tensor.
class LoadCollector : public ir::IRVisitor {
 public:
  explicit LoadCollector(const te::OperationNode* op) : op_(op) {}
  std::vector<std::vector<Expr>> accesses;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    if (op->buffer.get() == op_) accesses.push_back(op->indices);
    IRVisitor::Visit_(op);
  }

 private:
  const te::OperationNode* op_;
};

absl::StatusOr<RootDomain> FullDomain(const te::OperationNode* op, const ir::VarMap& bindings) {
  RootDomain dom;
  for (size_t d = 0; d < op->shape.size(); ++d) {
    auto ext = te::ConstExtent(ir::Substitute(op->shape[d], bindings),
                               absl::StrCat("dimension ", d, " of '", op->name, "'"));
    if (!ext.ok()) return ext.status();
    dom.min.push_back(Expr(0));
    dom.extent.push_back(*ext);
  }
  return dom;
}

}  // namespace

absl::StatusOr<Domains> InferBound(const schedule::Schedule& sch, const Bodies& bodies,
                                   const ir::VarMap& bindings) {
  Domains out;
  arith::Analyzer analyzer;  // Knows the range of every leaf loop seen so far.
  const auto& stages = sch.stages();
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const schedule::Stage& stage = **it;
    if (stage.is_placeholder() || stage.attach().kind == schedule::Attach::Kind::kInline) {
      continue;
    }
    auto full = FullDomain(stage.op(), bindings);
    if (!full.ok()) return full.status();
    RootDomain dom = *full;
    if (stage.attach().kind == schedule::Attach::Kind::kScope) {
      const schedule::Stage& parent = *stage.attach().stage;
      // Loops inside the attach point are relaxed: the parent's leaves after it, and every
      // leaf of the stages computed inside the parent (readers of this stage may be among them).
      absl::flat_hash_map<const ir::VarNode*, int64_t> relax;
      std::vector<std::pair<const schedule::Stage*, ir::VarMap>> readers;
      for (const auto& other : sch.stages()) {
        const schedule::Stage* s = other.get();
        bool inside = s == &parent;
        for (const schedule::Stage* a = s;
             !inside && a->attach().kind == schedule::Attach::Kind::kScope; a = a->attach().stage) {
          inside = a->attach().stage == &parent;
        }
        if (!inside || !out.contains(s->op())) continue;
        const RootDomain& sdom = out.at(s->op());
        auto sloops = MakeStageLoops(*s, sdom, bindings);
        if (!sloops.ok()) return sloops.status();
        bool relaxed = s != &parent;
        for (const te::IterVar& leaf : s->leaf_ivars()) {
          if (relaxed) relax[leaf->var.get()] = sloops->extent.at(leaf.get());
          if (s == &parent && leaf == stage.attach().ivar) relaxed = true;
        }
        readers.emplace_back(s, RootValues(*s, sdom, *sloops, bindings));
      }
      LoadCollector loads(stage.op());
      for (const auto& [reader, values] : readers) {
        LoadCollector lc(stage.op());
        lc.Visit(bodies.at(reader->op()));
        for (const auto& idx : lc.accesses) {
          std::vector<Expr> sub;
          for (const Expr& e : idx) sub.push_back(ir::Substitute(e, values));
          loads.accesses.push_back(sub);
        }
      }
      std::vector<std::optional<Interval>> region(dom.extent.size());
      bool ok = !loads.accesses.empty();
      for (const auto& idx : loads.accesses) {
        for (size_t d = 0; d < idx.size() && ok; ++d) {
          auto iv = Relax(analyzer.Simplify(idx[d]), relax);
          if (!iv) {
            ok = false;
            break;
          }
          if (!region[d]) {
            region[d] = iv;
          } else {
            region[d] = Interval{ir::min(region[d]->first, iv->first),
                                 ir::max(region[d]->second, iv->second)};
          }
        }
      }
      if (ok) {
        RootDomain shrunk;
        for (size_t d = 0; d < dom.extent.size(); ++d) {
          // The unclamped width bounds the region; the producer guards positions that fall
          // outside the tensor (a consumer's non-divisible split reads past the end).
          Expr mn = analyzer.Simplify(ir::max(region[d]->first, Expr(0)));
          Expr width = analyzer.Simplify(region[d]->second - region[d]->first + 1);
          std::optional<int64_t> e;
          if (const int64_t* c = ir::AsConstInt(width)) {
            e = *c;
          } else if (auto b = analyzer.ConstBound(width)) {
            e = b->max;
          }
          if (!e || *e <= 0 || *e >= full->extent[d]) {
            shrunk.min.push_back(Expr(0));
            shrunk.extent.push_back(full->extent[d]);
          } else {
            shrunk.min.push_back(mn);
            shrunk.extent.push_back(*e);
          }
        }
        dom = std::move(shrunk);
      }
    }
    auto loops = MakeStageLoops(stage, dom, bindings);
    if (!loops.ok()) return loops.status();
    for (const te::IterVar& leaf : stage.leaf_ivars()) {
      analyzer.Bind(leaf->var.get(), 0, loops->extent.at(leaf.get()));
    }
    out[stage.op()] = std::move(dom);
  }
  return out;
}

}  // namespace tunefarm::lower
