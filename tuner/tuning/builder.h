// The builder: config → lowered loop nest → features → artifact, for a batch of configs on a
// pool of threads. CPU targets build shared libraries with the kernel C ABI; CUDA targets build
// a serialized v1::GpuModule (PTX + launch) per config and a host shared library (baseline
// x86-64) as the reference the worker checks GPU results against. A config that fails to build is a
// result (with its error), never a crash.
#ifndef TUNEFARM_TUNER_TUNING_BUILDER_H_
#define TUNEFARM_TUNER_TUNING_BUILDER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/lower/lowered_func.h"
#include "proto/measure.pb.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// Name of the kernel symbol in every artifact the tuner builds.
inline constexpr char kKernelName[] = "tunefarm_kernel";

struct BuildResult {
  int64_t index = 0;
  // Not OK: the config could not be lowered or compiled (message says why).
  absl::Status status;
  // The artifact (see above) and its content hash.
  std::string artifact;
  std::string artifact_hash;
  // Kernel arguments in ABI order.
  std::vector<v1::TensorArg> tensors;
  double build_seconds = 0;
};

// Lowers config `index` of `task` (nullopt index: the unscheduled reference program).
absl::StatusOr<lower::LoweredFunc> LowerConfig(const TuneTask& task, std::optional<int64_t> index);

// Builds one config. Thread-safe.
BuildResult BuildConfig(const TuneTask& task, std::optional<int64_t> index);

// Builds configs on `threads` threads; results in the order of `indices`.
std::vector<BuildResult> BuildAll(const TuneTask& task, const std::vector<int64_t>& indices,
                                  int threads);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_BUILDER_H_
