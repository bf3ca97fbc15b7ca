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

// Whether `mask` (bit d for axis d) holds axis `d`; axes past 63 are never set.
bool HasAxis(uint64_t mask, int64_t d) { return d >= 0 && d < 64 && ((mask >> d) & 1) != 0; }

// The axes (bit d for `axes[d]`) that each distinct load of a body indexes; structurally equal
// loads (the same value) once.
class ReadAxes : public ir::IRVisitor {
 public:
  explicit ReadAxes(const std::vector<te::IterVar>& axes) : axes_(axes) {}
  std::vector<uint64_t> masks;
  std::vector<const ir::LoadNode*> loads;  // Per mask.

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
      loads.push_back(op);
    }
    IRVisitor::Visit_(op);
  }

 private:
  const std::vector<te::IterVar>& axes_;
  std::vector<const ir::LoadNode*> seen_;  // Nodes of the body, alive with it.
};

// An index as base + offset, the offset a constant (base undefined for a constant index).
std::pair<ir::Expr, int64_t> BaseAndOffset(const ir::Expr& index) {
  if (const int64_t* c = ir::AsConstInt(index)) return {ir::Expr(), *c};
  if (const auto* add = index.as<ir::BinaryNode>();
      add != nullptr && add->op == ir::BinaryOp::kAdd) {
    if (const int64_t* c = ir::AsConstInt(add->b)) return {add->a, *c};
    if (const int64_t* c = ir::AsConstInt(add->a)) return {add->b, *c};
  }
  return {index, 0};
}

// A load's indices as bases and constant offsets (BaseAndOffset).
struct SplitIndices {
  std::vector<ir::Expr> bases;
  std::vector<int64_t> offsets;
};
SplitIndices Split(const ir::LoadNode* load) {
  SplitIndices s;
  for (const ir::Expr& i : load->indices) {
    auto [base, offset] = BaseAndOffset(i);
    s.bases.push_back(base);
    s.offsets.push_back(offset);
  }
  return s;
}

bool SameBases(const SplitIndices& a, const SplitIndices& b) {
  if (a.bases.size() != b.bases.size()) return false;
  for (size_t i = 0; i < a.bases.size(); ++i) {
    const ir::Expr& x = a.bases[i];
    const ir::Expr& y = b.bases[i];
    if (x.defined() != y.defined() || (x.defined() && !ir::StructuralEqual(x, y))) return false;
  }
  return true;
}

// The registers a dot group led by `first` takes (see ReadAxisMasks), 0 where its loads are not
// the operands of one: 8-bit integers (a byte group) or signed int16 (a word group).
int64_t DotGroupRegisters(const ir::LoadNode* first, const VectorRegisterFile& file) {
  const bool integer = first->type.is_int() || first->type.is_uint();
  if (integer && first->type.bits == 8) return file.byte_group_registers;
  if (first->type.is_int() && first->type.bits == 16) return 2;
  return 0;
}

}  // namespace

VectorRegisterFile TargetVectorRegisters(const codegen::Target& target) {
  // TargetHasFeature answers only for the triple's own architecture's features.
  const bool x86 = absl::StartsWith(target.triple, "x86_64") ||
                   absl::StartsWith(target.triple, "i386") ||
                   absl::StartsWith(target.triple, "i686");
  if (!x86) return {.registers = 32, .bytes = 16, .embedded_broadcast = false};
  if (codegen::TargetHasFeature(target, "avx512f")) {
    return {.registers = 32,
            .bytes = 64,
            .embedded_broadcast = true,
            .byte_group_registers = codegen::TargetHasFeature(target, "avx512vnni") ? 1 : 2};
  }
  return {.registers = 16, .bytes = 32, .embedded_broadcast = false};
}

std::vector<uint64_t> ReadAxisMasks(const te::Tensor& reduction, const VectorRegisterFile& file) {
  const te::ComputeOpNode* c = reduction.compute();
  if (c == nullptr) return {};
  ReadAxes finder(c->axis);
  finder.Visit(c->body);
  // Dot groups: four loads of one buffer, of the same type, indexing the same axes, at indices
  // that differ by constants alone. Bytes: four consecutive bytes of one run (the indices but
  // the last equal, the last at offsets o..o+3), one 32-bit value, `byte_group_registers`. Words
  // (dense_u8s8_avx2.te's W16[j/8, k, u/2, j%8, u%2], a weight widened ahead of time): two
  // vectors, each lane's pairs (u0, u1) and (u2, u3); or (its A16[i, 4k + u]) two broadcasts.
  const size_t n = finder.loads.size();
  std::vector<SplitIndices> split;
  for (const ir::LoadNode* load : finder.loads) split.push_back(Split(load));
  std::vector<bool> grouped(n, false);
  std::vector<uint64_t> masks;
  for (size_t a = 0; a < n; ++a) {
    const ir::LoadNode* first = finder.loads[a];
    const int64_t registers = DotGroupRegisters(first, file);
    if (grouped[a] || registers == 0 || first->indices.empty()) continue;
    const bool bytes = first->type.bits == 8;
    std::vector<size_t> run = {a};
    for (size_t b = a + 1; b < n; ++b) {
      const ir::LoadNode* load = finder.loads[b];
      if (grouped[b] || load->buffer != first->buffer || load->type != first->type ||
          finder.masks[b] != finder.masks[a] || !SameBases(split[a], split[b])) {
        continue;
      }
      // A byte run: the offsets of the indices but the last equal too.
      if (bytes && !std::equal(split[a].offsets.begin(), split[a].offsets.end() - 1,
                               split[b].offsets.begin())) {
        continue;
      }
      run.push_back(b);
    }
    if (run.size() != 4) continue;
    if (bytes) {
      std::vector<int64_t> last;
      for (size_t r : run) last.push_back(split[r].offsets.back());
      std::sort(last.begin(), last.end());
      if (last[3] - last[0] != 3 || std::adjacent_find(last.begin(), last.end()) != last.end()) {
        continue;
      }
    }
    for (size_t r : run) grouped[r] = true;
    for (int64_t k = 0; k < registers; ++k) masks.push_back(finder.masks[a]);
  }
  for (size_t a = 0; a < n; ++a) {
    if (!grouped[a]) masks.push_back(finder.masks[a]);
  }
  return masks;
}

int64_t LiveRegisters(const std::vector<int64_t>& inner, const std::vector<uint64_t>& reads,
                      int64_t element_bytes, const VectorRegisterFile& file,
                      const std::vector<int>& row_order) {
  if (inner.empty()) return 0;
  const int v = static_cast<int>(inner.size()) - 1;
  std::vector<int> order = row_order;
  if (order.empty()) {
    for (int d = 0; d < v; ++d) order.push_back(d);
  }
  const int64_t lanes = std::max<int64_t>(1, file.bytes / std::max<int64_t>(1, element_bytes));
  const int64_t vectors = (inner[v] + lanes - 1) / lanes;
  int64_t live = vectors;  // The accumulators.
  for (int d = 0; d < v; ++d) live *= inner[d];
  for (const uint64_t mask : reads) {
    const bool vector = HasAxis(mask, v);
    auto indexes = [mask](int d) { return HasAxis(mask, d); };
    // The outermost row (in the tile's order) with a tile above 1 that the load does not index:
    // its values are kept across that axis's rows, and those that differ in the rows inside it
    // are live at once.
    size_t kept = order.size();
    for (size_t p = 0; p < order.size() && kept == order.size(); ++p) {
      if (inner[order[p]] > 1 && !indexes(order[p])) kept = p;
    }
    if (kept < order.size()) {
      int64_t at_once = vector ? vectors : 1;
      for (size_t p = kept + 1; p < order.size(); ++p) {
        if (indexes(order[p])) at_once *= inner[order[p]];
      }
      live += at_once;
    } else if (!vector && (!file.embedded_broadcast || vectors > 1)) {
      // The broadcast, in a register of its own: without embedded broadcast, and also with it
      // when the value feeds more than one vector, which LLVM then broadcasts once into a
      // register (vbroadcastss) rather than from memory in each multiply-add.
      live += 1;
    }
  }
  return live;
}

std::vector<int> RegisterRowOrder(const std::vector<int64_t>& inner,
                                  const std::vector<uint64_t>& reads, int64_t element_bytes,
                                  const VectorRegisterFile& file) {
  std::vector<int> order;
  for (int d = 0; d + 1 < static_cast<int>(inner.size()); ++d) order.push_back(d);
  int64_t best = LiveRegisters(inner, reads, element_bytes, file, order);
  if (best <= file.registers) return order;
  // The rows with a tile above 1, permuted in their places (rows of 1 change nothing); at most
  // 6! orders.
  std::vector<int> places, rows;
  for (int d : order) {
    if (inner[d] > 1) {
      places.push_back(d);
      rows.push_back(d);
    }
  }
  if (rows.size() > 6) return order;
  std::vector<int> best_order = order;
  while (std::next_permutation(rows.begin(), rows.end())) {
    std::vector<int> candidate = order;
    for (size_t i = 0; i < places.size(); ++i) candidate[places[i]] = rows[i];
    const int64_t live = LiveRegisters(inner, reads, element_bytes, file, candidate);
    if (live < best) {
      best = live;
      best_order = candidate;
    }
  }
  return best_order;
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
  const std::vector<uint64_t> reads = acc->axis.size() == w->axis.size()
                                          ? ReadAxisMasks(ts.accumulator, file)
                                          : std::vector<uint64_t>{};
  const int64_t element_bytes = ts.accumulator.dtype().bytes();
  space->AddConstraint(name, [tiles, reads, element_bytes, file](const std::vector<int64_t>& c) {
    std::vector<int64_t> inner;
    for (const auto& [k, factors] : tiles) inner.push_back(k < 0 ? 1 : factors[c[k]]);
    return LiveRegisters(inner, reads, element_bytes, file,
                         RegisterRowOrder(inner, reads, element_bytes, file)) <= file.registers;
  });
}

}  // namespace tunefarm::tuner
