#include "graph/plan_memory.h"

#include <algorithm>
#include <numeric>

namespace tunefarm::graph {

MemoryPlan PlanMemory(const std::vector<BufferUse>& uses) {
  MemoryPlan plan;
  plan.offsets.assign(uses.size(), 0);
  std::vector<size_t> order(uses.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return uses[a].bytes > uses[b].bytes; });
  auto aligned = [](int64_t n) {
    return (n + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  };
  std::vector<size_t> placed;
  for (size_t i : order) {
    const BufferUse& u = uses[i];
    plan.unshared_bytes += aligned(u.bytes);
    // The placed buffers alive at the same time, by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t p : placed) {
      if (uses[p].last < u.first || u.last < uses[p].first) continue;
      busy.emplace_back(plan.offsets[p], plan.offsets[p] + aligned(uses[p].bytes));
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (offset + aligned(u.bytes) <= begin) break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + aligned(u.bytes));
    placed.push_back(i);
  }
  return plan;
}

}  // namespace tunefarm::graph
