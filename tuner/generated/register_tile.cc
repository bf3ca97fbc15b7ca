#include "tuner/generated/register_tile.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"
#include "tuner/generated/knob_names.h"

namespace tunefarm::tuner {
namespace {

// The axes (bit d for `axes[d]`) that each distinct load of a body indexes; structurally equal
// loads (the same value) once.
class ReadAxes : public ir::IRVisitor {
 public:
  explicit ReadAxes(const std::vector<te::IterVar>& axes) : axes_(axes) {}
  std::vector<uint64_t> masks;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    auto same = [op](const ir::LoadNode* o) {
      if (o->buffer != op->buffer || o->indices.size() != op->indices.size()) return false;
      for (size_t i = 0; i < op->indices.size(); ++i) {
        if (!ir::StructuralEqual(o->indices[i], op->indices[i])) return false;
      }
      return true;
    };
    if (std::none_of(seen_.begin(), seen_.end(), same)) {
      seen_.push_back(op);
      uint64_t mask = 0;
      for (size_t d = 0; d < axes_.size() && d < 64; ++d) {
        const ir::VarNode* v = axes_[d]->var.get();
        for (const ir::Expr& i : op->indices) {
          if (ir::UsesVar(i, [v](const ir::VarNode* u) { return u == v; }))
            mask |= uint64_t{1} << d;
        }
      }
      masks.push_back(mask);
    }
    IRVisitor::Visit_(op);
  }

 private:
  const std::vector<te::IterVar>& axes_;
  std::vector<const ir::LoadNode*> seen_;  // Nodes of the body, alive with it.
};

}  // namespace

VectorRegisterFile TargetVectorRegisters(const codegen::Target& target) {
  // TargetHasFeature answers only for the triple's own architecture's features.
  const bool x86 = absl::StartsWith(target.triple, "x86_64") ||
                   absl::StartsWith(target.triple, "i386") ||
                   absl::StartsWith(target.triple, "i686");
  if (!x86) return {.registers = 32, .bytes = 16, .embedded_broadcast = false};
  if (codegen::TargetHasFeature(target, "avx512f")) {
    return {.registers = 32, .bytes = 64, .embedded_broadcast = true};
  }
  return {.registers = 16, .bytes = 32, .embedded_broadcast = false};
}

int64_t LiveRegisters(const std::vector<int64_t>& inner, const std::vector<uint64_t>& reads,
                      int64_t element_bytes, const VectorRegisterFile& file) {
  if (inner.empty()) return 0;
  const size_t v = inner.size() - 1;
  const int64_t lanes = std::max<int64_t>(1, file.bytes / std::max<int64_t>(1, element_bytes));
  const int64_t vectors = (inner[v] + lanes - 1) / lanes;
  int64_t live = vectors;  // The accumulators.
  for (size_t d = 0; d < v; ++d) live *= inner[d];
  for (const uint64_t mask : reads) {
    const bool vector = (mask >> v) & 1;
    // The outermost row axis with a tile above 1 that the load does not index: its values are
    // kept across that axis's rows, and those that differ in the axes inside it are live at once.
    size_t kept = v;
    for (size_t d = 0; d < v && kept == v; ++d) {
      if (inner[d] > 1 && !((mask >> d) & 1)) kept = d;
    }
    if (kept < v) {
      int64_t at_once = vector ? vectors : 1;
      for (size_t d = kept + 1; d < v; ++d) {
        if ((mask >> d) & 1) at_once *= inner[d];
      }
      live += at_once;
    } else if (!vector && !file.embedded_broadcast) {
      live += 1;  // The broadcast, in a register of its own.
    }
  }
  return live;
}

void AddRegisterTileConstraint(const TiledStage& ts, const VectorRegisterFile& file,
                               ConfigSpace* space) {
  if (!ts.accumulator.defined()) return;
  const std::string name = KnobName(ts.writer, "registers");
  for (int i = 0; i < space->num_constraints(); ++i) {
    if (space->constraint_name(i) == name) return;
  }
  const te::ComputeOpNode* w = ts.writer.compute();
  const te::ComputeOpNode* acc = ts.accumulator.compute();
  // Per axis: its tile knob's index (-1: untiled, an inner tile of 1) and the inner factor of
  // each of its choices.
  std::vector<std::pair<int, std::vector<int64_t>>> tiles(w->axis.size(), {-1, {}});
  bool has_rows = false;
  for (size_t d = 0; d < w->axis.size(); ++d) {
    const int k = space->KnobIndex(KnobName(ts.writer, absl::StrCat("tile_", w->axis[d]->name())));
    if (k < 0) continue;
    const auto* split = dynamic_cast<const SplitKnob*>(&space->knob(k));
    if (split == nullptr) continue;
    std::vector<int64_t> inner;
    for (int64_t c = 0; c < split->size(); ++c) inner.push_back(split->Factors(c).back());
    tiles[d] = {k, std::move(inner)};
    if (d + 1 < w->axis.size()) has_rows = true;
  }
  if (!has_rows) return;
  // The accumulator has the writer's axes (the writer is the reduction itself, or reads it
  // element for element); its body's loads are what a step of the reduction reads.
  std::vector<uint64_t> reads;
  if (acc->axis.size() == w->axis.size()) {
    ReadAxes finder(acc->axis);
    finder.Visit(acc->body);
    reads = std::move(finder.masks);
  }
  const int64_t element_bytes = ts.accumulator.dtype().bytes();
  space->AddConstraint(name, [tiles, reads, element_bytes, file](const std::vector<int64_t>& c) {
    std::vector<int64_t> inner;
    for (const auto& [k, factors] : tiles) inner.push_back(k < 0 ? 1 : factors[c[k]]);
    return LiveRegisters(inner, reads, element_bytes, file) <= file.registers;
  });
}

}  // namespace tunefarm::tuner
