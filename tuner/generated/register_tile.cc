#include "tuner/generated/register_tile.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tuner/generated/knob_names.h"

namespace tunefarm::tuner {

int64_t AccumulatorRegisterBytes(const codegen::Target& target) {
  // TargetHasFeature answers only for the triple's own architecture's features.
  const bool x86 = absl::StartsWith(target.triple, "x86_64") ||
                   absl::StartsWith(target.triple, "i386") ||
                   absl::StartsWith(target.triple, "i686");
  if (!x86) return (32 - 1) * 16;
  return codegen::TargetHasFeature(target, "avx512f") ? 32 * 64 : (16 - 1) * 32;
}

void AddRegisterTileConstraint(const TiledStage& ts, int64_t accumulator_bytes,
                               ConfigSpace* space) {
  if (!ts.accumulator.defined()) return;
  const std::string name = KnobName(ts.writer, "registers");
  for (int i = 0; i < space->num_constraints(); ++i) {
    if (space->constraint_name(i) == name) return;
  }
  // Per tile knob: its index and the inner factor of each of its choices.
  std::vector<std::pair<int, std::vector<int64_t>>> tiles;
  bool has_rows = false;
  const te::ComputeOpNode* w = ts.writer.compute();
  for (size_t d = 0; d < w->axis.size(); ++d) {
    const int k = space->KnobIndex(KnobName(ts.writer, absl::StrCat("tile_", w->axis[d]->name())));
    if (k < 0) continue;
    const auto* split = dynamic_cast<const SplitKnob*>(&space->knob(k));
    if (split == nullptr) continue;
    std::vector<int64_t> inner;
    for (int64_t c = 0; c < split->size(); ++c) inner.push_back(split->Factors(c).back());
    tiles.emplace_back(k, std::move(inner));
    if (d + 1 < w->axis.size()) has_rows = true;
  }
  if (!has_rows) return;
  const int64_t max_points = accumulator_bytes / std::max(1, ts.accumulator.dtype().bytes());
  space->AddConstraint(name, [tiles, max_points](const std::vector<int64_t>& choices) {
    int64_t points = 1;
    for (const auto& [k, inner] : tiles) points *= inner[choices[k]];
    return points <= max_points;
  });
}

}  // namespace tunefarm::tuner
