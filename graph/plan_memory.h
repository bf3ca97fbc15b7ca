// Memory planning: the intermediate tensors of a compiled model share one arena. Each lives
// from the group that writes it to the last group that reads it; tensors whose lifetimes do not
// overlap may take the same bytes. Placement is greedy, largest first, at the lowest offset
// that collides with no placed tensor of an overlapping lifetime (as TVM's and TFLite's
// planners do), each offset aligned to 64 bytes.
#ifndef TUNEFARM_GRAPH_PLAN_MEMORY_H_
#define TUNEFARM_GRAPH_PLAN_MEMORY_H_

#include <cstdint>
#include <vector>

namespace tunefarm::graph {

inline constexpr int64_t kTensorAlignment = 64;

struct BufferUse {
  int64_t bytes = 0;
  // Indices of the first (writing) and last (reading) group; first <= last.
  int first = 0;
  int last = 0;
};

struct MemoryPlan {
  // Per buffer (same order as the uses): its offset in the arena.
  std::vector<int64_t> offsets;
  int64_t arena_bytes = 0;
  // What the buffers would take without sharing, for the report.
  int64_t unshared_bytes = 0;
};

MemoryPlan PlanMemory(const std::vector<BufferUse>& uses);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_PLAN_MEMORY_H_
