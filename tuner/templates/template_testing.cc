#include "tuner/templates/template_testing.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/codegen_nvptx.h"
#include "compiler/lower/emulate_gpu.h"
#include "compiler/lower/lower.h"

namespace tunefarm::tuner {

std::string TemplateCaseName(const TemplateCase& c, size_t index) {
  return absl::StrCat(c.name, "_", c.dtype, "_", index);
}

absl::StatusOr<std::vector<runtime::NDArray>> RunConfig(const Template& t, const Workload& w,
                                                        const codegen::Target& target,
                                                        const Config* config, uint64_t seed) {
  codegen::Target host = codegen::HostTarget();
  const bool gpu = target.kind == codegen::Target::Kind::kCUDA && config != nullptr;
  auto inst = t.Instantiate(w, gpu ? target : host, config);
  if (!inst.ok()) return inst.status();
  auto f = lower::Lower(*inst->sch, inst->args, "kernel");
  if (!f.ok()) return f.status();
  lower::LoweredFunc run = *f;
  if (gpu) {
    auto ptx = codegen::BuildGpuKernel(*f, target);
    if (!ptx.ok()) return ptx.status();
    auto emulated = lower::EmulateGpuKernel(*f);
    if (!emulated.ok()) return emulated.status();
    run = *emulated;
  }
  auto jit = codegen::BuildJit({run}, host);
  if (!jit.ok()) return jit.status();
  auto fn = (*jit)->Lookup("kernel");
  if (!fn.ok()) return fn.status();
  std::vector<runtime::NDArray> arrays;
  for (size_t i = 0; i < inst->args.size(); ++i) {
    std::vector<int64_t> shape;
    for (const auto& d : inst->args[i].shape()) shape.push_back(*ir::AsConstInt(d));
    auto a = runtime::NDArray::Empty(shape, inst->args[i].dtype());
    if (!a.ok()) return a.status();
    a->FillRandom(seed + i);
    arrays.push_back(std::move(*a));
  }
  arrays.back().Fill(NAN);
  std::vector<runtime::NDArray*> ptrs;
  for (auto& a : arrays) ptrs.push_back(&a);
  if (absl::Status s = runtime::Call(*fn, ptrs); !s.ok()) return s;
  return arrays;
}

}  // namespace tunefarm::tuner
