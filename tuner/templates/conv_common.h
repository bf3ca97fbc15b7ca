// Shape arithmetic and the padded input shared by the convolution templates (NCHW).
#ifndef TUNEFARM_TUNER_TEMPLATES_CONV_COMMON_H_
#define TUNEFARM_TUNER_TEMPLATES_CONV_COMMON_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

struct ConvShape {
  int64_t n, c, h, w;  // Input.
  int64_t k;           // Output channels (== c for depthwise).
  int64_t r, s;        // Kernel height and width.
  int64_t stride, pad;
  int64_t oh, ow;  // Output height and width.
};

// Validates the geometry and computes the output size. InvalidArgument: a kernel larger than
// the padded input, a pad not smaller than the kernel.
absl::StatusOr<ConvShape> MakeConvShape(const std::string& template_name, int64_t n, int64_t c,
                                        int64_t h, int64_t w, int64_t k, int64_t r, int64_t s,
                                        int64_t stride, int64_t pad);

// The input with `pad` zeros on each spatial side (or the input itself when pad == 0).
absl::StatusOr<te::Tensor> PadInput(const te::Tensor& input, const ConvShape& shape);

// Validates the args of a full convolution (N,C,H,W,K,R,S,stride,pad; pad may be 0) and its
// dtype, and counts its FLOPs. InvalidArgument as MakeConvShape, or a wrong arg count/dtype.
// `dtypes` are the ones the template supports (float16: half inputs, float32 accumulation and
// output).
absl::StatusOr<Workload> MakeConvWorkload(const std::string& template_name,
                                          const std::vector<int64_t>& args, ir::DataType dtype,
                                          const std::vector<ir::DataType>& dtypes = {
                                              ir::DataType::Float(32)});
// The geometry of a workload made by MakeConvWorkload. InvalidArgument for any other workload.
absl::StatusOr<ConvShape> ConvShapeOf(const Workload& w);

// O[n, k, y, x] = Σ_{c, r, s} pad(I)[n, c, y·st + r, x·st + s] · W[k, c, r, s] in NCHW: the
// definition of conv2d and the reference program of its blocked variant.
struct DirectConv {
  te::Tensor input, weight, padded, out;
};
absl::StatusOr<DirectConv> MakeDirectConv(const ConvShape& shape, ir::DataType dtype);

// O[n, c, y, x] = Σ_{r, s} pad(I)[n, c, y·st + r, x·st + s] · W[c, 0, r, s] (channel
// multiplier 1): the definition of depthwise_conv2d.
absl::StatusOr<DirectConv> MakeDepthwiseConv(const ConvShape& shape, ir::DataType dtype);

// The unroll_rs knob: with "unroll", the kernel window's reduce loops `ry` and `rx` of `stage`
// are unrolled.
absl::Status UnrollWindow(const std::string& template_name, schedule::Stage& stage,
                          const te::IterVar& ry, const te::IterVar& rx, const Config& config);

// The padding stage of a CPU convolution (when there is one): its (N, C) planes fused and,
// with `parallel`, run in parallel.
absl::Status SchedulePaddingPlanes(const std::string& template_name, schedule::Schedule& s,
                                   const DirectConv& conv, bool parallel);

// The outline the two direct NCHW convolutions (conv2d, depthwise_conv2d) share: the geometry
// from the workload; GPU spaces and schedules from gpu_conv.h; on CPUs an output stage with a
// "local" accumulator stage computed inside it, the unroll_rs knob over the kernel window, the
// parallel knob and the padding planes. A subclass gives the geometry, the definition, its own
// knobs (defined before unroll_rs and parallel, so config indices keep their meaning) and the
// tiling of the two stages.
class DirectConvTemplate : public Template {
 public:
  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const final;
  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const final;

 protected:
  // The window's reduce axes of the local stage, for unroll_rs.
  struct Window {
    te::IterVar ry, rx;
  };
  // The geometry of a workload MakeWorkload made. InvalidArgument otherwise.
  virtual absl::StatusOr<ConvShape> Shape(const Workload& w) const = 0;
  // The program: input, weight, padded input and output.
  virtual absl::StatusOr<DirectConv> Define(const ConvShape& sh, ir::DataType dtype) const = 0;
  virtual void DefineGpuSpace(const ConvShape& sh, ConfigSpace* space) const = 0;
  virtual absl::StatusOr<Instance> InstantiateGpu(const ConvShape& sh, ir::DataType dtype,
                                                  const Config& config) const = 0;
  // The subclass's CPU knobs.
  virtual void DefineCpuSpace(const ConvShape& sh, ConfigSpace* space) const = 0;
  // Tiles the output stage `o` per `config` and computes the local stage `l` inside it.
  virtual absl::StatusOr<Window> ScheduleCpu(const Config& config, bool parallel,
                                             schedule::Stage& o, schedule::Stage& l) const = 0;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_CONV_COMMON_H_
