// Prints the lowered IR of every template on fixed workloads and configs (CPU and CUDA, fp32
// and fp16, whole spaces up to 40 configs, plus each reference program). For behaviour-neutral
// changes: run it on two trees and compare the outputs, e.g.
//   bazel run //tools:ir_dump > /tmp/after.txt   (and the same on the base commit)
//   cmp /tmp/before.txt /tmp/after.txt
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/lower/lower.h"
#include "tuner/templates/registry.h"

namespace tunefarm {
namespace {

struct Case {
  const char* name;
  std::vector<int64_t> args;
  const char* dtype;
  const char* target;
};

constexpr int kConfigsPerCase = 40;

// The printed body of the program `config` (null: the reference) gives, or its error.
std::string Lowered(const tuner::Template& t, const tuner::Workload& w,
                    const codegen::Target& target, const tuner::Config* config) {
  absl::StatusOr<tuner::Instance> inst = t.Instantiate(w, target, config);
  if (!inst.ok()) return "ERROR " + std::string(inst.status().message());
  absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*inst->sch, inst->args, "k");
  if (!f.ok()) return "LOWER ERROR " + std::string(f.status().message());
  return ir::ToString(f->body);
}

int Run() {
  const std::vector<Case> cases = {
      {"dense", {24, 32, 20}, "float32", "llvm"},
      {"dense", {7, 48, 33}, "float32", "llvm"},
      {"dense", {1024, 1024, 1024}, "float32", "llvm"},
      {"batch_matmul", {3, 12, 16, 10}, "float32", "llvm"},
      {"conv2d", {1, 6, 10, 12, 8, 3, 3, 1, 1}, "float32", "llvm"},
      {"conv2d", {2, 4, 9, 9, 6, 3, 3, 2, 0}, "float32", "llvm"},
      {"conv2d_nchwc", {1, 8, 10, 12, 16, 3, 3, 1, 1}, "float32", "llvm"},
      {"conv2d_nchwc", {1, 64, 56, 56, 128, 3, 3, 2, 1}, "float32", "llvm"},
      {"conv2d_nchwc_packed", {1, 32, 9, 10, 16, 3, 3, 1, 1}, "float32", "llvm"},
      {"conv2d_nchwc_packed", {1, 64, 56, 56, 128, 3, 3, 2, 1}, "float32", "llvm"},
      {"conv2d_nchwc_packed", {1, 64, 56, 56, 64, 3, 3, 1, 1}, "float32", "llvm"},
      {"depthwise_conv2d", {1, 5, 11, 10, 3, 3, 1, 1}, "float32", "llvm"},
      {"softmax", {6, 40}, "float32", "llvm"},
      {"bias_relu", {12, 48}, "float32", "llvm"},
      {"dense", {64, 64, 64}, "float32", "cuda -arch=sm_80"},
      {"batch_matmul", {2, 32, 32, 32}, "float32", "cuda -arch=sm_80"},
      {"conv2d", {1, 8, 12, 12, 16, 3, 3, 1, 1}, "float32", "cuda -arch=sm_80"},
      {"depthwise_conv2d", {1, 8, 12, 12, 3, 3, 1, 1}, "float32", "cuda -arch=sm_80"},
      {"softmax", {64, 128}, "float32", "cuda -arch=sm_80"},
      {"bias_relu", {64, 128}, "float32", "cuda -arch=sm_80"},
      {"dense_splitk", {16, 8, 256}, "float32", "cuda -arch=sm_80"},
      {"dense_tensorcore", {64, 64, 64}, "float16", "cuda -arch=sm_80"},
      {"batch_matmul_tensorcore", {3, 32, 48, 32}, "float16", "cuda -arch=sm_80"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<const tuner::Template*> t = tuner::FindTemplate(c.name);
    absl::StatusOr<ir::DataType> dtype = ir::ParseDataType(c.dtype);
    absl::StatusOr<codegen::Target> target = codegen::ParseTarget(c.target);
    if (!t.ok() || !dtype.ok() || !target.ok()) {
      std::printf("== %s: unknown template, dtype or target\n", c.name);
      return 1;
    }
    absl::StatusOr<tuner::Workload> w = (*t)->MakeWorkload(c.args, *dtype);
    tuner::ConfigSpace space;
    if (!w.ok() || !(*t)->DefineSpace(*w, *target, &space).ok()) {
      std::printf("== %s %s: no space\n", c.name, c.target);
      continue;
    }
    std::printf("== %s %s %s\n-- reference\n%s\n", c.name, c.target, space.Describe().c_str(),
                Lowered(**t, *w, *target, nullptr).c_str());
    // The first configs of the space, then a stride through the rest.
    for (int64_t i = 0; i < kConfigsPerCase; ++i) {
      const int64_t index = i < space.size() ? i : (i * 7919 + 13) % space.size();
      absl::StatusOr<tuner::Config> config = space.Get(index);
      if (!config.ok()) continue;
      std::printf("-- config %lld\n%s\n", static_cast<long long>(index),
                  Lowered(**t, *w, *target, &*config).c_str());
    }
  }
  return 0;
}

}  // namespace
}  // namespace tunefarm

int main() { return tunefarm::Run(); }
