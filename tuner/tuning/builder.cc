#include "tuner/tuning/builder.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/build.h"
#include "compiler/lower/lower.h"
#include "tracker/content_hash.h"

namespace tunefarm::tuner {
namespace {

v1::DType ToProto(ir::DataType t) {
  if (t == ir::DataType::Float(32)) return v1::DTYPE_FLOAT32;
  if (t == ir::DataType::Float(16)) return v1::DTYPE_FLOAT16;
  if (t == ir::DataType::Float(64)) return v1::DTYPE_FLOAT64;
  if (t == ir::DataType::Int(8)) return v1::DTYPE_INT8;
  if (t == ir::DataType::Int(32)) return v1::DTYPE_INT32;
  if (t == ir::DataType::Int(64)) return v1::DTYPE_INT64;
  if (t == ir::DataType::UInt(8)) return v1::DTYPE_UINT8;
  return v1::DTYPE_UNSPECIFIED;
}

}  // namespace

absl::StatusOr<lower::LoweredFunc> LowerConfig(const TuneTask& task, std::optional<int64_t> index) {
  std::optional<Config> config;
  if (index.has_value()) {
    auto c = task.space->Get(*index);
    if (!c.ok()) return c.status();
    config = *c;
  }
  auto inst = task.tmpl->Instantiate(task.workload, task.target, config ? &*config : nullptr);
  if (!inst.ok()) return inst.status();
  return lower::Lower(*inst->sch, inst->args, kKernelName);
}

BuildResult BuildConfig(const TuneTask& task, std::optional<int64_t> index) {
  auto start = std::chrono::steady_clock::now();
  BuildResult r;
  r.index = index.value_or(-1);
  auto f = LowerConfig(task, index);
  if (!f.ok()) {
    r.status = f.status();
    return r;
  }
  for (size_t i = 0; i < f->args.size(); ++i) {
    v1::TensorArg arg;
    for (int64_t d : f->args[i].shape) arg.mutable_spec()->add_shape(d);
    arg.mutable_spec()->set_dtype(ToProto(f->args[i].buffer->dtype));
    arg.set_is_output(i + 1 == f->args.size());
    r.tensors.push_back(std::move(arg));
  }
  auto so = codegen::BuildSharedLibrary({*f}, task.target);
  if (!so.ok()) {
    r.status = so.status();
  } else {
    r.artifact = *std::move(so);
    r.artifact_hash = ContentHash(r.artifact);
  }
  r.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<BuildResult> BuildAll(const TuneTask& task, const std::vector<int64_t>& indices,
                                  int threads) {
  std::vector<BuildResult> out(indices.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < indices.size(); i = next++) out[i] = BuildConfig(task, indices[i]);
  };
  std::vector<std::thread> pool;
  int n = std::max(1, std::min<int>(threads, static_cast<int>(indices.size())));
  for (int t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return out;
}

}  // namespace tunefarm::tuner
