// Layout planning: every activation gets one layout in memory, chosen by what computes it.
// Convolutions and poolings work in the channel-blocked layout NCHW[b]c (oneDNN's nChw16c for
// b = 16; the block is 16 where it divides the channels, all of them for up to 64 channels, 8
// where it divides them), so a chain of them needs no transform; everything else works in the
// row-major layout of the ONNX shape. A transform group is added only where a tensor is read
// in a layout other than its own, and the two differ in memory (a blocked tensor of 1×1
// pixels is the same bytes as its row-major NCHW).
#ifndef TUNEFARM_GRAPH_PLAN_LAYOUT_H_
#define TUNEFARM_GRAPH_PLAN_LAYOUT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/fuse_groups.h"
#include "graph/graph.h"

namespace tunefarm::graph {

// 0: row-major in the tensor's ONNX shape. b > 0: a rank-4 NCHW tensor as [N, C/b, H, W, b].
struct Layout {
  int64_t block = 0;
  bool operator==(const Layout& o) const { return block == o.block; }
};

// The channel block of a tensor of `channels` channels in the blocked layout.
int64_t ChannelBlockFor(int64_t channels);

// The tensor's shape in memory under `layout`.
std::vector<int64_t> MemoryShape(const Tensor& t, const Layout& layout);

// The same bytes under both layouts.
bool SameMemory(const Tensor& t, const Layout& a, const Layout& b);

struct LayoutPlan {
  // The layout of every activation tensor (including those the transforms write).
  std::map<std::string, Layout> layouts;
  // Per group (same index as the groups after planning): the tensors it reads under another
  // name, a transform's output.
  std::vector<std::map<std::string, std::string>> read_as;
  // The model's outputs after planning (a transform's output where one was added).
  std::vector<std::string> outputs;
};

// Assigns layouts and inserts transform groups (kLayout) into `groups`; `g` gains the tensors
// the transforms write. Internal: a group kind it does not know.
absl::StatusOr<LayoutPlan> PlanLayouts(Graph& g, std::vector<FusedGroup>& groups);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_PLAN_LAYOUT_H_
