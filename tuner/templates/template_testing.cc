#include "tuner/templates/template_testing.h"

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/codegen_nvptx.h"
#include "compiler/lower/emulate_gpu.h"
#include "compiler/lower/lower.h"
#include "compiler/tests/ptxas.h"

namespace tunefarm::tuner {

std::string TemplateCaseName(const TemplateCase& c, size_t index) {
  return absl::StrCat(c.name, "_", c.dtype, "_", index);
}

absl::StatusOr<std::string> ConfigAssembly(const Template& t, const Workload& w,
                                           const codegen::Target& target, const Config& config) {
  auto inst = t.Instantiate(w, target, &config);
  if (!inst.ok()) return inst.status();
  auto f = lower::Lower(*inst->sch, inst->args, "kernel");
  if (!f.ok()) return f.status();
  return codegen::BuildAssembly({*f}, target);
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
  std::vector<lower::LoweredFunc> funcs = {run};
  for (size_t p = 0; p < inst->prepacks.size(); ++p) {
    const Prepack& pack = inst->prepacks[p];
    auto pf = lower::Lower(*pack.sch, pack.args, absl::StrCat("pack", p));
    if (!pf.ok()) return pf.status();
    funcs.push_back(*std::move(pf));
  }
  auto jit = codegen::BuildJit(funcs, host);
  if (!jit.ok()) return jit.status();
  auto fn = (*jit)->Lookup("kernel");
  if (!fn.ok()) return fn.status();
  auto make = [&](const te::Tensor& t) {
    std::vector<int64_t> shape;
    for (const auto& d : t.shape()) shape.push_back(*ir::AsConstInt(d));
    return runtime::NDArray::Empty(shape, t.dtype());
  };
  // The operator's arguments (a weight packed ahead of time as the operator takes it, with the
  // same values as the reference's), and what the kernel is called with (its packed copy).
  std::vector<runtime::NDArray> arrays;
  for (size_t i = 0; i < inst->args.size(); ++i) {
    te::Tensor arg = inst->args[i];
    for (const Prepack& pack : inst->prepacks) {
      if (pack.arg_index == static_cast<int>(i)) arg = pack.args[0];
    }
    auto a = make(arg);
    if (!a.ok()) return a.status();
    // Bytes over their whole range (the int8 templates' operands); other types in [-1, 1).
    const ir::DataType t = arg.dtype();
    if (t.bits == 8 && t.is_uint()) {
      a->FillRandom(seed + i, 0, 256);
    } else if (t.bits == 8 && t.is_int()) {
      a->FillRandom(seed + i, -128, 128);
    } else {
      a->FillRandom(seed + i);
    }
    arrays.push_back(std::move(*a));
  }
  arrays.back().Fill(NAN);
  std::vector<runtime::NDArray*> ptrs;
  for (auto& a : arrays) ptrs.push_back(&a);
  std::vector<runtime::NDArray> packed;
  packed.reserve(inst->prepacks.size());
  for (size_t p = 0; p < inst->prepacks.size(); ++p) {
    const Prepack& pack = inst->prepacks[p];
    auto out = make(pack.args[1]);
    if (!out.ok()) return out.status();
    packed.push_back(std::move(*out));
    auto pack_fn = (*jit)->Lookup(absl::StrCat("pack", p));
    if (!pack_fn.ok()) return pack_fn.status();
    if (absl::Status s = runtime::Call(*pack_fn, {&arrays[pack.arg_index], &packed.back()});
        !s.ok()) {
      return s;
    }
    ptrs[pack.arg_index] = &packed.back();
  }
  if (absl::Status s = runtime::Call(*fn, ptrs); !s.ok()) return s;
  return arrays;
}

absl::StatusOr<int> AssembleRandomGpuConfigs(const Template& t, const Workload& w,
                                             const std::string& ptxas, int per_arch) {
  int assembled = 0;
  for (const char* arch : {"sm_80", "sm_90"}) {
    absl::StatusOr<codegen::Target> cuda = codegen::ParseTarget(absl::StrCat("cuda -arch=", arch));
    if (!cuda.ok()) return cuda.status();
    ConfigSpace space;
    if (absl::Status s = t.DefineSpace(w, *cuda, &space); !s.ok()) return s;
    std::mt19937_64 rng(11);
    for (int tries = 0, built = 0; built < per_arch && tries < 40; ++tries) {
      absl::StatusOr<Config> cfg =
          space.Get(static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size())));
      if (!cfg.ok()) return cfg.status();
      absl::StatusOr<Instance> inst = t.Instantiate(w, *cuda, &*cfg);
      if (!inst.ok()) return inst.status();
      absl::StatusOr<lower::LoweredFunc> f =
          lower::Lower(*inst->sch, inst->args, "tunefarm_kernel");
      if (!f.ok()) return f.status();
      absl::StatusOr<codegen::GpuKernel> k = codegen::BuildGpuKernel(*f, *cuda);
      if (k.status().code() == absl::StatusCode::kFailedPrecondition) continue;  // Limits.
      if (!k.ok()) return k.status();
      if (absl::Status s =
              ptxas.empty() ? absl::OkStatus() : testing::AssemblePtx(ptxas, k->ptx, arch);
          !s.ok()) {
        return absl::Status(s.code(), absl::StrCat(cfg->ToJson(), ": ", s.message()));
      }
      ++built;
      ++assembled;
    }
  }
  return assembled;
}

}  // namespace tunefarm::tuner
