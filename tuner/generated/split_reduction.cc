#include "tuner/generated/split_reduction.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"
#include "tuner/generated/rebuild_program.h"

namespace tunefarm::tuner {
namespace {

using ir::Expr;
using te::Tensor;

// Whether some load has `inner` in its last index and `outer` in another index but not in
// the last one.
class ContiguousAlong : public ir::IRVisitor {
 public:
  ContiguousAlong(const ir::VarNode* inner, const ir::VarNode* outer)
      : inner_(inner), outer_(outer) {}
  bool found = false;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    if (!op->indices.empty()) {
      auto is = [](const ir::VarNode* v) { return [v](const ir::VarNode* u) { return u == v; }; };
      const Expr& last = op->indices.back();
      bool outer_elsewhere = false;
      for (size_t d = 0; d + 1 < op->indices.size(); ++d) {
        outer_elsewhere |= ir::UsesVar(op->indices[d], is(outer_));
      }
      found |= ir::UsesVar(last, is(inner_)) && !ir::UsesVar(last, is(outer_)) && outer_elsewhere;
    }
    IRVisitor::Visit_(op);
  }

 private:
  const ir::VarNode* inner_;
  const ir::VarNode* outer_;
};

}  // namespace

int64_t SplitReductionLanes(const Tensor& reduction) {
  const te::ComputeOpNode* c = reduction.compute();
  if (c == nullptr || c->reduce_axis.empty() || c->axis.empty()) return 0;
  const int64_t* min = ir::AsConstInt(c->reduce_axis.back()->dom.min);
  if (min == nullptr || *min != 0) return 0;
  ContiguousAlong check(c->reduce_axis.back()->var.get(), c->axis.back()->var.get());
  check.Visit(c->body);
  if (!check.found) return 0;
  const int64_t* extent = ir::AsConstInt(c->reduce_axis.back()->dom.extent);
  if (extent == nullptr) return 0;
  for (int64_t lanes : {16, 8, 4}) {
    if (*extent % lanes == 0 && *extent > lanes) return lanes;
  }
  return 0;
}

absl::StatusOr<std::vector<Tensor>> SplitReduction(const std::vector<Tensor>& args,
                                                   const Tensor& reduction, int64_t lanes) {
  const te::ComputeOpNode* c = reduction.compute();
  const auto* red = c != nullptr ? c->body.as<ir::ReduceNode>() : nullptr;
  if (red == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("split reduction: '", reduction.name(), "' is not a reduction"));
  }
  const te::IterVar& k = c->reduce_axis.back();
  const int64_t* extent = ir::AsConstInt(k->dom.extent);
  const int64_t* min = ir::AsConstInt(k->dom.min);
  if (lanes < 2 || extent == nullptr || *extent % lanes != 0 || min == nullptr || *min != 0) {
    return absl::InvalidArgumentError(absl::StrCat("split reduction: ", lanes,
                                                   " lanes do not divide the extent of '",
                                                   k->name(), "' in '", reduction.name(), "'"));
  }
  const int lanes32 = static_cast<int>(lanes);
  const std::string outer_name = k->name() + "o", lane_name = k->name() + "i";
  std::vector<Expr> shape;
  std::vector<std::string> names;
  for (const te::IterVar& iv : c->axis) {
    shape.push_back(iv->dom.extent);
    names.push_back(iv->name());
  }
  shape.push_back(Expr(lanes32));
  names.push_back(lane_name);
  // The partial reduction: the other reduce axes, then the outer part of k.
  absl::StatusOr<Tensor> partial = te::Compute(
      shape,
      [&](const std::vector<ir::Var>& v) {
        te::IterVar outer = te::ReduceAxis(Expr(static_cast<int>(*extent / lanes)), outer_name);
        ir::VarMap vmap;
        for (size_t d = 0; d < c->axis.size(); ++d) vmap[c->axis[d]->var.get()] = v[d];
        vmap[k->var.get()] = Expr(outer->var) * Expr(lanes32) + Expr(v.back());
        std::vector<ir::Var> axes(red->axes.begin(), red->axes.end() - 1);
        std::vector<ir::Range> ranges(red->ranges.begin(), red->ranges.end() - 1);
        axes.push_back(outer->var);
        ranges.push_back(outer->dom);
        return ir::ReduceNode::Make(red->op, ir::Substitute(red->source, vmap), std::move(axes),
                                    std::move(ranges));
      },
      reduction.name() + "_rf", names);
  if (!partial.ok()) return partial.status();
  names.pop_back();
  shape.pop_back();
  absl::StatusOr<Tensor> total = te::Compute(
      shape,
      [&](const std::vector<ir::Var>& v) {
        te::IterVar lane = te::ReduceAxis(Expr(lanes32), lane_name);
        std::vector<Expr> idx(v.begin(), v.end());
        idx.push_back(lane->var);
        return ir::ReduceNode::Make(red->op, (*partial)(idx), {lane->var}, {lane->dom});
      },
      reduction.name(), names);
  if (!total.ok()) return total.status();
  return RebuildProgram(args, {{reduction.op(), *total}});
}

}  // namespace tunefarm::tuner
