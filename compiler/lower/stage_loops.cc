#include "compiler/lower/stage_loops.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/te/tensor.h"

namespace tunefarm::lower {

using ir::Expr;

absl::StatusOr<StageLoops> MakeStageLoops(const schedule::Stage& stage, const RootDomain& dom,
                                          const ir::VarMap& bindings) {
  StageLoops out;
  for (size_t i = 0; i < stage.root_axes().size(); ++i) {
    out.extent[stage.root_axes()[i].get()] = dom.extent[i];
  }
  for (const te::IterVar& r : stage.reduce_axes()) {
    Expr ext = ir::Substitute(r->dom.extent, bindings);
    auto c = te::ConstExtent(
        ext, absl::StrCat("reduce axis '", r->name(), "' of '", stage.op()->name, "'"));
    if (!c.ok()) return c.status();
    out.extent[r.get()] = *c;
  }
  // Forward: extents of split/fuse results.
  for (const schedule::Relation& rel : stage.relations()) {
    if (rel.kind == schedule::Relation::Kind::kSplit) {
      int64_t ext = out.extent.at(rel.parent.get());
      int64_t inner, outer;
      if (rel.factor > 0) {
        inner = std::min(rel.factor, ext);
        outer = (ext + inner - 1) / inner;
      } else {
        outer = std::min(rel.nparts, ext);
        inner = (ext + outer - 1) / outer;
      }
      out.extent[rel.outer.get()] = outer;
      out.extent[rel.inner.get()] = inner;
    } else {
      out.extent[rel.fused.get()] = out.extent.at(rel.outer.get()) * out.extent.at(rel.inner.get());
    }
  }
  // Backward: values of relation inputs from leaf variables.
  absl::flat_hash_map<const te::IterVarNode*, Expr> value;
  for (const te::IterVar& leaf : stage.leaf_ivars()) value[leaf.get()] = leaf->var;
  for (auto it = stage.relations().rbegin(); it != stage.relations().rend(); ++it) {
    const schedule::Relation& rel = *it;
    if (rel.kind == schedule::Relation::Kind::kSplit) {
      int64_t inner_ext = out.extent.at(rel.inner.get());
      int64_t parent_ext = out.extent.at(rel.parent.get());
      Expr v =
          value.at(rel.outer.get()) * Expr(static_cast<int>(inner_ext)) + value.at(rel.inner.get());
      value[rel.parent.get()] = v;
      if (out.extent.at(rel.outer.get()) * inner_ext != parent_ext) {
        out.guards.push_back(v < Expr(static_cast<int>(parent_ext)));
      }
    } else {
      Expr f = value.at(rel.fused.get());
      Expr inner_ext(static_cast<int>(out.extent.at(rel.inner.get())));
      value[rel.outer.get()] = ir::floordiv(f, inner_ext);
      value[rel.inner.get()] = ir::floormod(f, inner_ext);
    }
  }
  for (const te::IterVar& r : stage.root_axes()) out.root_offset[r->var.get()] = value.at(r.get());
  for (const te::IterVar& r : stage.reduce_axes()) {
    out.root_offset[r->var.get()] = value.at(r.get());
  }
  return out;
}

ir::VarMap RootValues(const schedule::Stage& stage, const RootDomain& dom, const StageLoops& loops,
                      const ir::VarMap& bindings) {
  ir::VarMap out;
  for (size_t i = 0; i < stage.root_axes().size(); ++i) {
    const ir::Var& v = stage.root_axes()[i]->var;
    out[v.get()] = dom.min[i] + loops.root_offset.at(v.get());
  }
  for (const te::IterVar& r : stage.reduce_axes()) {
    out[r->var.get()] = ir::Substitute(r->dom.min, bindings) + loops.root_offset.at(r->var.get());
  }
  return out;
}

}  // namespace tunefarm::lower
