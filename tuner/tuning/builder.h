// The builder: config → lowered loop nest → features → artifact, for a batch of configs on a
// pool of threads. CPU targets build shared libraries with the kernel C ABI; CUDA targets build
// a serialized v1::GpuModule (PTX + launch) per config and a host shared library (baseline
// x86-64) as the reference the worker checks GPU results against. A config that fails to build is a
// result (with its error), never a crash.
#ifndef TUNEFARM_TUNER_TUNING_BUILDER_H_
#define TUNEFARM_TUNER_TUNING_BUILDER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/lower/lowered_func.h"
#include "proto/measure.pb.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// Name of the kernel symbol in every artifact the tuner builds.
inline constexpr char kKernelName[] = "tunefarm_kernel";

// One config's build: what a Measurer sends to the farm, or the error that replaces it.
struct BuildResult {
  // The config's index in the task's space; -1 for the reference program.
  int64_t index = 0;
  // Not OK: the config could not be lowered or compiled (message says why).
  absl::Status status;
  // The artifact's bytes (see above) and their content hash (hex SHA-256); both empty when
  // `status` is not OK.
  std::string artifact;
  std::string artifact_hash;
  // Kernel arguments in ABI order: shape and dtype of each, the last one marked as the
  // output. Filled once lowering succeeded, even if compiling then failed.
  std::vector<v1::TensorArg> tensors;
  // The weights the kernel reads packed ahead of time (template.h's Prepack): `tensors` holds
  // the operator's input there, as the reference reads it.
  std::vector<v1::PackedArg> packed_args;
  // Wall time of lowering and compiling, in seconds (left 0 when lowering failed).
  double build_seconds = 0;
};

// A config lowered: its kernel, and the programs that pack its weights ahead of time (none
// unless the config packs one; see template.h's Prepack), each with the kernel argument it
// makes.
struct LoweredPack {
  int arg_index = 0;
  lower::LoweredFunc func;
};
struct LoweredConfig {
  lower::LoweredFunc kernel;
  std::vector<LoweredPack> packs;
};

// The name of the function that packs weight `input` of kernel `kernel` ahead of time.
std::string PackKernelName(absl::string_view kernel, absl::string_view input);

// Lowers config `index` of `task` (nullopt index: the unscheduled reference program) into a
// kernel named kKernelName, and its packs named PackKernelName(kKernelName, weight). Errors,
// passed through: OutOfRange (index outside the space), the template's Instantiate errors
// (InvalidArgument, ...), lower::Lower's (InvalidArgument, FailedPrecondition).
absl::StatusOr<LoweredConfig> LowerConfig(const TuneTask& task, std::optional<int64_t> index);

// A kernel's argument as the measurement protocol describes it.
v1::TensorSpec ToTensorSpec(const lower::FuncArg& arg);

// LLVM's time grows with the size of the lowered kernel (a 111k-node kernel took 7 s, a
// 247k-node one 58 s on the development machine, while the spaces' kernels are mostly under
// 20k): a config whose kernel is larger is refused before compiling, so no single config
// stalls a batch. The builder has no wall-clock timeout (LLVM cannot be interrupted inside
// this process); this bound is what keeps a build short.
inline constexpr int64_t kMaxKernelNodes = 100000;

// Builds one config (nullopt: the reference program, a host shared library even for CUDA
// targets). Never fails: errors are in the result's `status`, ResourceExhausted for a kernel
// of more than `max_kernel_nodes` IR nodes (ir::CountNodes). Thread-safe.
BuildResult BuildConfig(const TuneTask& task, std::optional<int64_t> index,
                        int64_t max_kernel_nodes = kMaxKernelNodes);

// Builds configs on `threads` threads (at most one per config, at least one: the calling
// thread takes part); results in the order of `indices`.
std::vector<BuildResult> BuildAll(const TuneTask& task, const std::vector<int64_t>& indices,
                                  int threads);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_BUILDER_H_
