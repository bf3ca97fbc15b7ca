#include "tuner/tuning/builder.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/content_hash.h"
#include "common/parallel_for.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/codegen_nvptx.h"
#include "compiler/ir/ir_util.h"
#include "compiler/lower/lower.h"
#include "proto/gpu_module.pb.h"

namespace tunefarm::tuner {
namespace {

v1::DType ToProto(ir::DataType t) {
  if (t == ir::DataType::Float(32)) return v1::DTYPE_FLOAT32;
  if (t == ir::DataType::Float(16)) return v1::DTYPE_FLOAT16;
  if (t == ir::DataType::Float(64)) return v1::DTYPE_FLOAT64;
  if (t == ir::DataType::Int(8)) return v1::DTYPE_INT8;
  if (t == ir::DataType::Int(16)) return v1::DTYPE_INT16;
  if (t == ir::DataType::Int(32)) return v1::DTYPE_INT32;
  if (t == ir::DataType::Int(64)) return v1::DTYPE_INT64;
  if (t == ir::DataType::UInt(8)) return v1::DTYPE_UINT8;
  return v1::DTYPE_UNSPECIFIED;
}

// The host target that runs a GPU task's reference on the worker: baseline x86-64 (or the
// host's own architecture elsewhere), since the worker's CPU may be older than this one.
codegen::Target ReferenceHostTarget() {
  codegen::Target host = codegen::HostTarget();
  auto generic = codegen::ParseTarget("llvm -mcpu=x86-64");
  return generic.ok() && generic->triple == host.triple ? *generic : host;
}

// CPU targets: a shared library with the kernel C ABI. CUDA targets: a serialized GpuModule
// (PTX and launch) for configs; the reference is a host shared library (the worker checks GPU
// results against it on the CPU).
absl::StatusOr<std::string> BuildArtifact(const TuneTask& task, const LoweredConfig& lowered,
                                          bool is_config) {
  const lower::LoweredFunc& f = lowered.kernel;
  if (task.target.kind != codegen::Target::Kind::kCUDA) {
    std::vector<lower::LoweredFunc> funcs = {f};
    for (const LoweredPack& p : lowered.packs) funcs.push_back(p.func);
    return codegen::BuildSharedLibrary(funcs, task.target);
  }
  if (!lowered.packs.empty()) {
    return absl::UnimplementedError("weights packed ahead of time are for CPU targets only");
  }
  if (!is_config) return codegen::BuildSharedLibrary({f}, ReferenceHostTarget());
  auto kernel = codegen::BuildGpuKernel(f, task.target);
  if (!kernel.ok()) return kernel.status();
  v1::GpuModule module;
  module.set_ptx(kernel->ptx);
  module.set_entry(kernel->entry);
  module.set_arch(kernel->arch);
  module.mutable_grid()->set_x(static_cast<int32_t>(kernel->launch.grid[0]));
  module.mutable_grid()->set_y(static_cast<int32_t>(kernel->launch.grid[1]));
  module.mutable_grid()->set_z(static_cast<int32_t>(kernel->launch.grid[2]));
  module.mutable_block()->set_x(static_cast<int32_t>(kernel->launch.block[0]));
  module.mutable_block()->set_y(static_cast<int32_t>(kernel->launch.block[1]));
  module.mutable_block()->set_z(static_cast<int32_t>(kernel->launch.block[2]));
  module.set_shared_bytes(static_cast<int32_t>(kernel->launch.shared_bytes));
  std::string bytes;
  if (!module.SerializeToString(&bytes)) return absl::InternalError("cannot serialize GpuModule");
  return bytes;
}

}  // namespace

std::string PackKernelName(absl::string_view kernel, absl::string_view input) {
  return absl::StrCat(kernel, "_pack_", input);
}

v1::TensorSpec ToTensorSpec(const lower::FuncArg& arg) {
  v1::TensorSpec spec;
  for (int64_t d : arg.shape) spec.add_shape(d);
  spec.set_dtype(ToProto(arg.buffer->dtype));
  return spec;
}

absl::StatusOr<LoweredConfig> LowerConfig(const TuneTask& task, std::optional<int64_t> index) {
  std::optional<Config> config;
  if (index.has_value()) {
    auto c = task.space->Get(*index);
    if (!c.ok()) return c.status();
    config = *c;
  }
  auto inst = task.tmpl->Instantiate(task.workload, task.target, config ? &*config : nullptr);
  if (!inst.ok()) return inst.status();
  LoweredConfig out;
  auto kernel = lower::Lower(*inst->sch, inst->args, kKernelName);
  if (!kernel.ok()) return kernel.status();
  out.kernel = *std::move(kernel);
  for (const Prepack& p : inst->prepacks) {
    auto pack = lower::Lower(*p.sch, p.args, PackKernelName(kKernelName, p.args[0].name()));
    if (!pack.ok()) return pack.status();
    out.packs.push_back({p.arg_index, *std::move(pack)});
  }
  return out;
}

BuildResult BuildConfig(const TuneTask& task, std::optional<int64_t> index,
                        int64_t max_kernel_nodes) {
  auto start = std::chrono::steady_clock::now();
  BuildResult r;
  r.index = index.value_or(-1);
  auto lowered = LowerConfig(task, index);
  if (!lowered.ok()) {
    r.status = lowered.status();
    return r;
  }
  const lower::LoweredFunc* f = &lowered->kernel;
  // Every argument, and every pack's operator input, in a dtype the measurement protocol
  // carries (proto/common.proto's DType): else no worker could allocate it.
  std::vector<const lower::FuncArg*> carried;
  for (const lower::FuncArg& a : f->args) carried.push_back(&a);
  for (const LoweredPack& p : lowered->packs) carried.push_back(&p.func.args[0]);
  for (const lower::FuncArg* a : carried) {
    if (ToProto(a->buffer->dtype) == v1::DTYPE_UNSPECIFIED) {
      r.status = absl::InvalidArgumentError(
          absl::StrCat("argument '", a->buffer->name, "' is ", a->buffer->dtype.ToString(),
                       ", which the farm does not carry (float16/32/64, int8/16/32/64, uint8)"));
      return r;
    }
  }
  for (size_t i = 0; i < f->args.size(); ++i) {
    v1::TensorArg arg;
    *arg.mutable_spec() = ToTensorSpec(f->args[i]);
    arg.set_is_output(i + 1 == f->args.size());
    r.tensors.push_back(std::move(arg));
  }
  for (const LoweredPack& p : lowered->packs) {
    // The request describes the operator's input, as the reference reads it; the worker packs
    // it into the kernel's argument.
    v1::PackedArg packed;
    packed.set_arg_index(p.arg_index);
    *packed.mutable_spec() = r.tensors[p.arg_index].spec();
    packed.set_pack_kernel_name(p.func.name);
    *r.tensors[p.arg_index].mutable_spec() = ToTensorSpec(p.func.args[0]);
    r.packed_args.push_back(std::move(packed));
  }
  if (const int64_t nodes = ir::CountNodes(f->body); nodes > max_kernel_nodes) {
    r.status = absl::ResourceExhaustedError(
        absl::StrCat("kernel too large to compile: ", nodes, " IR nodes after lowering (limit ",
                     max_kernel_nodes, "); configs with smaller unrolled tiles stay under it"));
    r.build_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }
  auto artifact = BuildArtifact(task, *lowered, index.has_value());
  if (!artifact.ok()) {
    r.status = artifact.status();
  } else {
    r.artifact = *std::move(artifact);
    r.artifact_hash = ContentHash(r.artifact);
  }
  r.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<BuildResult> BuildAll(const TuneTask& task, const std::vector<int64_t>& indices,
                                  int threads) {
  std::vector<BuildResult> out(indices.size());
  ParallelFor(indices.size(), threads, [&](size_t i) { out[i] = BuildConfig(task, indices[i]); });
  return out;
}

}  // namespace tunefarm::tuner
