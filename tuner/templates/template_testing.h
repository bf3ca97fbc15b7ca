// Test support for templates: build a config and run it on this machine.
#ifndef TUNEFARM_TUNER_TEMPLATES_TEMPLATE_TESTING_H_
#define TUNEFARM_TUNER_TEMPLATES_TEMPLATE_TESTING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/runtime/ndarray.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

// A template, its shape arguments and dtype: one case of a parameterized template test.
struct TemplateCase {
  std::string name;
  std::vector<int64_t> args;
  std::string dtype = "float32";
};

// A readable test name: "dense_float16_3".
std::string TemplateCaseName(const TemplateCase& c, size_t index);

// Instantiates `config` of `t` for `target` (nullptr: the reference program, always built for
// the host), runs it on inputs seeded by `seed` and returns every argument (outputs last). A
// weight the config packs ahead of time is packed first, and returned as the operator takes it.
// For a cuda target the kernel must compile to PTX (codegen::BuildGpuKernel) and runs through
// host emulation (lower/emulate_gpu.h: blocks in turn, threads in lockstep between barriers): its
// results are the GPU schedule's.
absl::StatusOr<std::vector<runtime::NDArray>> RunConfig(const Template& t, const Workload& w,
                                                        const codegen::Target& target,
                                                        const Config* config, uint64_t seed);

// The assembly of `config` of `t` built for the CPU `target` (any machine: nothing runs), to
// check which instructions a schedule emits.
absl::StatusOr<std::string> ConfigAssembly(const Template& t, const Workload& w,
                                           const codegen::Target& target, const Config& config);

// Builds the PTX of `per_arch` random configs of `t`'s cuda space, for sm_80 and sm_90,
// skipping configs the GPU verifier refuses (at most 40 tries per arch), and assembles each
// with `ptxas` (compiler/tests/ptxas.h) unless it is empty. Returns how many were built; the
// first build or ptxas failure is an error naming the config.
absl::StatusOr<int> AssembleRandomGpuConfigs(const Template& t, const Workload& w,
                                             const std::string& ptxas, int per_arch);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_TEMPLATE_TESTING_H_
