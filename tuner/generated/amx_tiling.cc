#include "tuner/generated/amx_tiling.h"

#include <utility>

#include "compiler/codegen/amx_nest.h"
#include "compiler/ir/ir_util.h"
#include "tuner/generated/knob_names.h"
#include "tuner/generated/sketch.h"
#include "tuner/templates/amx_common.h"

namespace tunefarm::tuner {
namespace {

using ir::DataType;
using te::IterVar;
using te::Tensor;

int64_t Extent(const IterVar& iv) {
  const int64_t* e = ir::AsConstInt(iv->dom.extent);
  return e == nullptr ? 0 : *e;
}

// The load under int32(...), or null.
const ir::LoadNode* Int32OfLoad(const ir::Expr& e) {
  const auto* cast = e.as<ir::CastNode>();
  if (cast == nullptr || cast->type != DataType::Int(32)) return nullptr;
  return cast->value.as<ir::LoadNode>();
}

// A term int32(a) · int32(w), a uint8 and w int8, either way round.
bool SplitTerm(const ir::Expr& term, const ir::LoadNode** a, const ir::LoadNode** w) {
  const auto* mul = term.as<ir::BinaryNode>();
  if (mul == nullptr || mul->op != ir::BinaryOp::kMul) return false;
  const ir::LoadNode* x = Int32OfLoad(mul->a);
  const ir::LoadNode* y = Int32OfLoad(mul->b);
  if (x == nullptr || y == nullptr) return false;
  if (x->type == DataType::Int(8) && y->type == DataType::UInt(8)) std::swap(x, y);
  if (x->type != DataType::UInt(8) || y->type != DataType::Int(8)) return false;
  *a = x;
  *w = y;
  return true;
}

bool Indexes(const ir::LoadNode* load, const IterVar& iv) {
  for (const ir::Expr& i : load->indices) {
    if (ir::UsesVar(i, [&](const ir::VarNode* v) { return v == iv->var.get(); })) return true;
  }
  return false;
}

}  // namespace

std::optional<AmxTiling> FindAmxTiling(const std::vector<Tensor>& args,
                                       const codegen::Target& target) {
  if (args.empty() || !CheckAmxTarget("", target, "").ok()) return std::nullopt;
  const Tensor& out = args.back();
  const te::ComputeOpNode* c = out.compute();
  if (c == nullptr || c->axis.size() < 2 || c->reduce_axis.empty() ||
      out.dtype() != DataType::Int(32)) {
    return std::nullopt;
  }
  for (const Tensor& t : ComputeStages(out)) {
    if (t != out && !t.compute()->reduce_axis.empty()) return std::nullopt;  // One reduction.
  }
  const auto* reduce = c->body.as<ir::ReduceNode>();
  if (reduce == nullptr || reduce->op != ir::ReduceOp::kSum) return std::nullopt;
  const std::vector<ir::Expr> terms = ir::SumTerms(reduce->source);
  if (terms.size() != 4) return std::nullopt;
  const IterVar& rows = c->axis[c->axis.size() - 2];
  const IterVar& cols = c->axis.back();
  const ir::BufferNode* a_buffer = nullptr;
  const ir::BufferNode* w_buffer = nullptr;
  for (const ir::Expr& term : terms) {
    const ir::LoadNode* a = nullptr;
    const ir::LoadNode* w = nullptr;
    if (!SplitTerm(term, &a, &w)) return std::nullopt;
    if (a_buffer == nullptr) a_buffer = a->buffer.get(), w_buffer = w->buffer.get();
    if (a->buffer.get() != a_buffer || w->buffer.get() != w_buffer) return std::nullopt;
    // A tile row of A per row of the output, a column of W per output column.
    if (!Indexes(a, rows) || Indexes(a, cols) || Indexes(w, rows) || !Indexes(w, cols)) {
      return std::nullopt;
    }
  }
  AmxTiling t;
  t.output = out;
  t.rows = Extent(rows);
  const int64_t columns = Extent(cols), groups = Extent(c->reduce_axis.back());
  if (columns % kAmxTile != 0 || groups % kAmxTile != 0 || t.rows == 0) return std::nullopt;
  t.col_tiles = columns / kAmxTile;
  t.step_groups = groups / kAmxTile;
  if (AmxWindowSteps(c->reduce_axis) == 0) return std::nullopt;  // A symbolic window.
  if (AmxBlocks(t.rows, t.col_tiles).empty() || AmxKSteps(t.step_groups).empty()) {
    return std::nullopt;
  }
  return t;
}

void DefineAmxTilingKnobs(const AmxTiling& t, ConfigSpace* space) {
  space->DefineOther(KnobName(t.output, "amx_block"), AmxBlocks(t.rows, t.col_tiles));
  space->DefineOther(KnobName(t.output, "amx_k_steps"), AmxKSteps(t.step_groups));
  space->DefineOther(KnobName(t.output, "amx_order"), {0, 1});
}

bool IsAmxTilingSpace(const Tensor& output, const ConfigSpace& space) {
  return space.KnobIndex(KnobName(output, "amx_block")) >= 0;
}

absl::StatusOr<IterVar> ApplyAmxTiling(const Tensor& output, const Config& config, bool parallel,
                                       schedule::Schedule* sch) {
  absl::StatusOr<int64_t> block = config.Other(KnobName(output, "amx_block"));
  if (!block.ok()) return block.status();
  absl::StatusOr<int64_t> k_steps = config.Other(KnobName(output, "amx_k_steps"));
  if (!k_steps.ok()) return k_steps.status();
  absl::StatusOr<int64_t> order = config.Other(KnobName(output, "amx_order"));
  if (!order.ok()) return order.status();
  return ScheduleAmxNests(output, AmxKnobs{*block / 10, *block % 10, *order, parallel}, *k_steps,
                          sch);
}

}  // namespace tunefarm::tuner
