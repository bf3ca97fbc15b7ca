// Intel AMX tiles in the generated space: a sketch rule that matches the computation against
// the tile instruction (auto-tensorization, as MetaSchedule's rules match tensor-core
// intrinsics), so a program gets the schedule the hand templates dense_u8s8_amx and
// conv2d_u8s8_amx have, with no per-operator code.
//
// It applies where the target has AMX-INT8 (x86-64 Linux) and the program's output is a sum,
// over reduction axes whose innermost counts groups of four inputs (a multiple of 16), of
//   Σ_{u<4} int32(A[...]) · int32(W[...])      A uint8, W int8
// with the output's last axis (the columns, a multiple of 16) indexing W and not A, and the
// axis before it (the rows) indexing A and not W: dense_u8s8_vnni.te (C[i, j], W in the VNNI
// layout) and conv2d_u8s8_nhwc.te (Y[n, y, x, f]: rows are the pixels of an image row). The
// compiler checks the rest (strides, layout: codegen/amx_nest.h); the generated space offers
// the rule only where it accepts the nest (generated_space.cc).
//
// The schedule is the templates' own (amx_common.h's ScheduleAmxNests): blocks of rows and
// column tiles, `k_steps` 64-byte steps per nest, a convolution's taps inside the nest where
// the whole reduction fits in one (the accumulators then start from zero), else outside it.
// Knobs (prefixed "<output>."; no other rule's knob starts with "amx_"):
//   amx_block    rows · 10 + col_tiles (amx_common.h's AmxBlocks: within the eight tile
//                registers);
//   amx_k_steps  64-byte steps of the innermost reduction axis per nest (a divisor of its
//                groups / 16; the nest's steps at most codegen::kAmxMaxSteps);
//   amx_order    0: row blocks outside column blocks, 1: the reverse;
// and, as in the vector rules, a padding stage's `<stage>.at` (computed once, or per iteration
// of the loop over the output's other axes) and the program's `parallel` (the outermost loop on
// the thread pool).
#ifndef TUNEFARM_TUNER_GENERATED_AMX_TILING_H_
#define TUNEFARM_TUNER_GENERATED_AMX_TILING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

struct AmxTiling {
  te::Tensor output;        // The reduction the rule tiles: the program's output.
  int64_t rows = 0;         // Extent of the rows axis (the one before the last).
  int64_t col_tiles = 0;    // The last axis in tiles of 16.
  int64_t step_groups = 0;  // The innermost reduction axis in steps of 16 groups.
};

// The rule's match for the program `args` (inputs, then the output) on `target`, or nullopt.
std::optional<AmxTiling> FindAmxTiling(const std::vector<te::Tensor>& args,
                                       const codegen::Target& target);

// Defines the rule's knobs (see above) in `space`.
void DefineAmxTilingKnobs(const AmxTiling& tiling, ConfigSpace* space);

// Whether `space` is the AMX rule's space for a program whose output is `output`.
bool IsAmxTilingSpace(const te::Tensor& output, const ConfigSpace& space);

// Schedules the output of `sch` per `config`; returns the loop where a stage computed per tile
// (a padding) is attached: the loop over the output's other axes, else the outermost. Internal: a
// config of another space; InvalidArgument or FailedPrecondition: a knob value that does not fit (a
// schedule primitive refused it).
absl::StatusOr<te::IterVar> ApplyAmxTiling(const te::Tensor& output, const Config& config,
                                           bool parallel, schedule::Schedule* sch);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_AMX_TILING_H_
