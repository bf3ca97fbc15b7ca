// CUDA schedules of the direct and depthwise NCHW convolutions (TVM's conv2d_direct and
// depthwise_conv2d cuda styles). The padding stage is inlined into a shared-memory fill of
// the input window, so zeros are produced on the fly.
//   conv2d: an output tile of (channels, rows, columns) per block over blockIdx.z (batch x
//     channel blocks), .y and .x; threads on threadIdx.z/.y/.x each accumulate a register tile;
//     the input channels are staged through shared memory tile_rc at a time, input window and
//     weights filled cooperatively. Knobs: tile_k, tile_oh, tile_ow = [blocks, threads, per
//     thread], tile_rc = [steps, per step], unroll_rs, vector (weight fill lanes).
//   depthwise_conv2d: the same output tiling over channels; each block stages its input window
//     (all its channels) in shared memory once; weights are read through the read-only path.
//     Knobs: tile_c, tile_oh, tile_ow, unroll_rs.
#ifndef TUNEFARM_TUNER_TEMPLATES_GPU_CONV_H_
#define TUNEFARM_TUNER_TEMPLATES_GPU_CONV_H_

#include <string>

#include "absl/status/statusor.h"
#include "tuner/templates/conv_common.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

void DefineGpuConvSpace(const ConvShape& shape, ConfigSpace* space);
absl::StatusOr<Instance> InstantiateGpuConv(const std::string& template_name,
                                            const ConvShape& shape, ir::DataType dtype,
                                            const Config& config);

void DefineGpuDepthwiseSpace(const ConvShape& shape, ConfigSpace* space);
absl::StatusOr<Instance> InstantiateGpuDepthwise(const std::string& template_name,
                                                 const ConvShape& shape, ir::DataType dtype,
                                                 const Config& config);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_GPU_CONV_H_
