// Schedule templates: an operator definition plus a config space whose every point is a valid
// schedule, in AutoTVM's manner. Templates register themselves by name (see registry.h).
#ifndef TUNEFARM_TUNER_TEMPLATES_TEMPLATE_H_
#define TUNEFARM_TUNER_TEMPLATES_TEMPLATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/ir/type.h"
#include "compiler/schedule/schedule.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

// One instance of a template: its shape arguments and dtype, and the work it does.
struct Workload {
  std::string template_name;
  // Template-specific integers, e.g. dense: {M, N, K}; conv2d: {N, C, H, W, K, R, S, stride,
  // pad}.
  std::vector<int64_t> args;
  ir::DataType dtype = ir::DataType::Float(32);
  // Floating-point operations of one run (multiply-add = 2), for GFLOP/s.
  double flop = 0;

  // Canonical JSON array of the args and dtype: [1024,1024,1024,"float32"].
  std::string ArgsJson() const;
  // "dense[1024,1024,1024,float32]", for people.
  std::string ToString() const;
};

// A weight the kernel reads in a layout made once, ahead of the calls, by a program of its own
// (a layer's parameters packed for the vector axis, as a deployment packs them once): `sch`
// computes args[1] from args[0], the operator's input that the kernel's argument
// `arg_index` replaces with args[1]'s layout.
struct Prepack {
  int arg_index = 0;
  std::vector<te::Tensor> args;
  std::unique_ptr<schedule::Schedule> sch;
};

// A scheduled program ready to lower: its tensors in kernel-argument order (inputs, then the
// output) and the schedule, with the weights it reads prepacked (usually none).
struct Instance {
  std::vector<te::Tensor> args;
  std::unique_ptr<schedule::Schedule> sch;
  std::vector<Prepack> prepacks;
};

class Template {
 public:
  virtual ~Template() = default;
  // Registry name, e.g. "dense".
  virtual std::string name() const = 0;
  // Meaning of the args, e.g. "M,N,K", for help and errors.
  virtual std::string args_doc() const = 0;

  // Validates shape arguments and dtype and computes the FLOP count.
  // InvalidArgument: wrong number of args, a non-positive extent, an impossible shape (e.g. a
  // kernel larger than the padded input) or an unsupported dtype.
  virtual absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& args,
                                                ir::DataType dtype) const = 0;
  // Defines the knobs for `w` on `target`.
  virtual absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                                   ConfigSpace* space) const = 0;
  // The program scheduled per `config`; with config == nullptr, the plain unscheduled program
  // (the correctness reference). `w` is a workload this template's MakeWorkload made. Internal:
  // a config from another space, or any other inconsistency in the template (see
  // TemplateError); templates never abort, since they run inside the job service.
  virtual absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                               const Config* config) const = 0;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_TEMPLATE_H_
