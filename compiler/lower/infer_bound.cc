#include "compiler/lower/infer_bound.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_equality.h"
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
  // Both operands points: the result is one point, built once, so that operators above it
  // (a floormod of a floordiv of a fused loop) still see a point and do not widen it to
  // their whole range. Rebuilt from the relaxed operands, never `e` itself: a relaxed loop of
  // extent 1 relaxes to 0 and x + 0 folds to x, so `e` could keep a relaxed variable that is
  // unbound where the region is used.
  if (a->first.same_as(a->second) && b_fixed) {
    Expr v = ir::BinaryNode::Make(op->op, a->first, b->first);
    return Interval{v, v};
  }
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
      return std::nullopt;
    }
    case ir::BinaryOp::kFloorDiv:
      if (b_fixed && bc != nullptr && *bc > 0) {
        return Interval{ir::floordiv(a->first, b->first), ir::floordiv(a->second, b->first)};
      }
      return std::nullopt;
    case ir::BinaryOp::kFloorMod:
      if (b_fixed && bc != nullptr && *bc > 0) {
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

bool Reads(const Expr& body, const te::OperationNode* op) {
  LoadCollector loads(op);
  loads.Visit(body);
  return !loads.accesses.empty();
}

int LeafIndex(const schedule::Stage& stage, const te::IterVar& iv) {
  const auto& leaves = stage.leaf_ivars();
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (leaves[i] == iv) return static_cast<int>(i);
  }
  return -1;
}

// The stage that `stage` is computed in at the parent's level: `stage` itself when attached
// to `parent`, else the stage it is attached to, directly or through others, that is attached
// to `parent`; null when none is.
const schedule::Stage* AttachedThrough(const schedule::Stage* stage,
                                       const schedule::Stage& parent) {
  while (stage->attach().kind == schedule::Attach::Kind::kScope &&
         stage->attach().stage != &parent) {
    stage = stage->attach().stage;
  }
  return stage->attach().kind == schedule::Attach::Kind::kScope ? stage : nullptr;
}

// The stages that read `stage`, which is computed at (parent, loop): the parent, then every
// other reader. compute_at only checks the schedule as it was when it was called, so the
// invariants that make the attached region correct are checked here again, on the final
// schedule: the parent still exists as loops and still has that loop, and every other reader
// is attached to the parent at that loop or inside it, directly or inside a stage that is (so
// it runs after this stage's nest and inside the region's lifetime).
absl::StatusOr<std::vector<const schedule::Stage*>> AttachedReaders(const schedule::Schedule& sch,
                                                                    const Bodies& bodies,
                                                                    const schedule::Stage& stage) {
  const schedule::Stage& parent = *stage.attach().stage;
  const std::string& name = stage.op()->name;
  if (parent.attach().kind == schedule::Attach::Kind::kInline) {
    return absl::FailedPreconditionError(absl::StrCat("compute_at: '", name, "' is computed at '",
                                                      parent.op()->name,
                                                      "', which was inlined afterwards"));
  }
  const int at = LeafIndex(parent, stage.attach().ivar);
  if (at < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("compute_at: '", name, "' is computed at loop '", stage.attach().ivar->name(),
                     "' of '", parent.op()->name,
                     "', which was split, fused or replaced afterwards; call compute_at "
                     "after transforming the target's loops"));
  }
  std::vector<const schedule::Stage*> readers = {&parent};
  for (const auto& other : sch.stages()) {
    if (other.get() == &stage || other.get() == &parent || other->is_placeholder() ||
        other->attach().kind == schedule::Attach::Kind::kInline ||
        !Reads(bodies.at(other->op()), stage.op())) {
      continue;
    }
    const schedule::Stage* at_parent = AttachedThrough(other.get(), parent);
    if (at_parent == nullptr || LeafIndex(parent, at_parent->attach().ivar) < at) {
      return absl::FailedPreconditionError(absl::StrCat(
          "compute_at: '", name, "' is computed at loop '", stage.attach().ivar->name(), "' of '",
          parent.op()->name, "' but is also read by '", other->op()->name,
          "', which is not computed inside that loop (attach '", other->op()->name, "' to '",
          parent.op()->name, "' at the same loop or an inner one)"));
    }
    readers.push_back(other.get());
  }
  return readers;
}

// Whether a buffer of `scope` is shared by the GPU threads that differ in index `tag`.
bool SharedAcrossTag(const std::string& scope, const std::string& tag) {
  // WMMA fragments belong to a warp: the lanes (threadIdx.x, 32 of them) share one.
  if (scope.rfind("wmma.", 0) == 0) return tag == "threadIdx.x";
  if (tag.rfind("threadIdx.", 0) == 0) return scope == "shared" || scope == "global";
  if (tag.rfind("blockIdx.", 0) == 0) return scope == "global";
  return false;
}

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
      auto readers = AttachedReaders(sch, bodies, stage);
      if (!readers.ok()) return readers.status();
      const RootDomain& pdom = out.at(parent.op());
      auto ploops = MakeStageLoops(parent, pdom, bindings);
      if (!ploops.ok()) return ploops.status();
      // Loops of the parent inside the attach point are relaxed.
      absl::flat_hash_map<const ir::VarNode*, int64_t> relax;
      bool inside = false;
      for (const te::IterVar& leaf : parent.leaf_ivars()) {
        if (inside) relax[leaf->var.get()] = ploops->extent.at(leaf.get());
        if (leaf == stage.attach().ivar) inside = true;
      }
      // A buffer shared by a group of GPU threads holds the region of the whole group: the
      // consumers' loops bound to the indices inside that group are relaxed too, at any depth
      // of the attach chain ("shared": every threadIdx; "global": blockIdx as well).
      if (stage.scope() != "local") {
        for (const schedule::Stage* anc = &parent; anc != nullptr;
             anc = anc->attach().kind == schedule::Attach::Kind::kScope ? anc->attach().stage
                                                                        : nullptr) {
          auto aloops = anc == &parent ? ploops : MakeStageLoops(*anc, out.at(anc->op()), bindings);
          if (!aloops.ok()) return aloops.status();
          for (const te::IterVar& leaf : anc->leaf_ivars()) {
            if (SharedAcrossTag(stage.scope(), anc->attr(leaf).thread_tag)) {
              relax[leaf->var.get()] = aloops->extent.at(leaf.get());
            }
          }
        }
      }
      // Accesses of every reader in the parent's leaf variables (a sibling reader's own loops
      // are relaxed too: its whole nest runs inside the attach point).
      std::vector<std::vector<Expr>> accesses;
      for (const schedule::Stage* reader : *readers) {
        const RootDomain& rdom = out.at(reader->op());
        auto rloops = reader == &parent ? ploops : MakeStageLoops(*reader, rdom, bindings);
        if (!rloops.ok()) return rloops.status();
        // A reader attached inside another stage that is inside the parent's loop: the loops
        // of that stage (and of any between) are relaxed as well.
        for (const schedule::Stage* in = reader; in != &parent; in = in->attach().stage) {
          auto iloops = in == reader ? rloops : MakeStageLoops(*in, out.at(in->op()), bindings);
          if (!iloops.ok()) return iloops.status();
          for (const te::IterVar& leaf : in->leaf_ivars()) {
            relax[leaf->var.get()] = iloops->extent.at(leaf.get());
          }
        }
        ir::VarMap values = RootValues(*reader, rdom, *rloops, bindings);
        LoadCollector loads(stage.op());
        loads.Visit(bodies.at(reader->op()));
        for (const auto& idx : loads.accesses) {
          std::vector<Expr> sub;
          for (const Expr& e : idx) sub.push_back(analyzer.Simplify(ir::Substitute(e, values)));
          accesses.push_back(std::move(sub));
        }
      }
      std::vector<std::optional<Interval>> region(dom.extent.size());
      bool ok = !accesses.empty();
      for (const auto& idx : accesses) {
        for (size_t d = 0; d < idx.size() && ok; ++d) {
          auto iv = Relax(idx[d], relax);
          if (!iv) {
            ok = false;
            break;
          }
          if (!region[d]) {
            region[d] = iv;
          } else if (ir::StructuralEqual(region[d]->first, iv->first) &&
                     ir::StructuralEqual(region[d]->second, iv->second)) {
            // The same interval again (e.g. from a sibling reader): min/max of equal
            // expressions would not simplify, and the region would widen to the whole shape.
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
