// The structure of a generated schedule, read from a program's stage graph by rules in the
// manner of Ansor's sketches (no per-operator code):
//   - an elementwise stage that is not the output is inlined into its readers, unless it
//     feeds a reduction (a padding stage) or its inlined body would be too large: those are
//     computed at the top level;
//   - every reduction gets multi-level tiling with a local accumulator: when its only reader
//     is the elementwise output of the same shape, reading it element for element (bias,
//     activation), the reduction is computed inside the output's tile (compute_at) and the
//     output is the tiled writer; otherwise the reduction is tiled on its own, with a
//     cache_write accumulator;
//   - an elementwise output with no such reduction is tiled along its last (contiguous) axis.
#ifndef TUNEFARM_TUNER_GENERATED_SKETCH_H_
#define TUNEFARM_TUNER_GENERATED_SKETCH_H_

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/te/tensor.h"

namespace tunefarm::tuner {

// One tiled stage: `writer` is tiled and its outer loops fused and run in parallel; the
// `accumulator` (a reduction; null for a plain elementwise writer) is computed inside the
// writer's tile. With cache_write, writer and accumulator are the same reduction: the schedule
// splits it into a local accumulator and its copy-out.
struct TiledStage {
  te::Tensor writer;
  te::Tensor accumulator;  // Undefined when the writer has no reduction to accumulate.
  bool cache_write = false;
};

// An elementwise stage is inlined only while its body, with the stages it reads inlined,
// stays within this many IR nodes.
inline constexpr double kMaxInlinedNodes = 4096;

struct Sketch {
  // Elementwise producers inlined into their readers.
  std::vector<te::Tensor> inlined;
  // Stages computed at the top level: elementwise producers read by a reduction (padding),
  // those too large to inline (see kMaxInlinedNodes), and the stages given as `at_root`.
  std::vector<te::Tensor> root;
  // The tiled stages, producers first; the last one writes the output.
  std::vector<TiledStage> tiled;
};

// The computed stages of the program that `output` ends, producers before their readers.
std::vector<te::Tensor> ComputeStages(const te::Tensor& output);

// The tensors `body` reads (inputs and stages), each once, in first-use order.
std::vector<te::Tensor> TensorsRead(const ir::Expr& body);

// Whether a register tile along data-parallel axis `d` of `reduction` reuses loaded values:
// something it reads does not depend on the axis (a dense layer's rows share the weights), or
// an index combines the axis with a reduction variable (sliding windows overlap: pooling,
// convolution). An axis that every read indexes on its own (a batch) has no reuse.
bool ReusedAlong(const te::Tensor& reduction, int d);

// The sketch of the program whose output is args.back() (args: inputs then output). Stages in
// `at_root` (packed copies of inputs, the lane sums of split reductions) are computed at the
// top level whatever they are, the output included.
// InvalidArgument: an output that is not computed, or an output of rank 0.
absl::StatusOr<Sketch> MakeSketch(const std::vector<te::Tensor>& args,
                                  const std::vector<te::Tensor>& at_root = {});

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_SKETCH_H_
