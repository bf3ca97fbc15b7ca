// `tunefarm export`: apply-history-best. Rebuilds the best recorded config of each requested
// workload and links them into one shared library with the kernel C ABI, plus a C header that
// declares every kernel with its argument shapes — ready to link into an application. For a
// cuda target the library is one PTX module holding every kernel, and the header gives each
// kernel's name, launch (grid, block, shared bytes) and arguments for the CUDA driver API.
#ifndef TUNEFARM_TUNER_EXPORT_EXPORT_LIBRARY_H_
#define TUNEFARM_TUNER_EXPORT_EXPORT_LIBRARY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "db/query_best.h"
#include "db/tuning_log.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

struct ExportOptions {
  // Compiler target the configs were tuned for (and the library is built for).
  std::string target;
  // Restrict to records of one device key; empty = any.
  std::string device_key;
  // A workload never tuned takes the best config of its nearest recorded shape.
  bool allow_nearest = false;
  std::string library_path;  // e.g. libkernels.so (kernels.ptx for cuda)
  std::string header_path;   // e.g. kernels.h
};

struct ExportedKernel {
  // C symbol, e.g. dense_1024_1024_1024_float32.
  std::string symbol;
  db::Workload workload;
  std::string config_json;
  double tuned_gflops = 0;
  // The config came from another shape (allow_nearest).
  bool nearest = false;
  // The best timing came from an emulated device (no real device measured this workload on
  // the target): the config is what the emulator ranked first.
  bool emulated = false;
  // The functions that pack the kernel's weights ahead of time (see the header), if any.
  std::vector<std::string> pack_symbols;
};

// Another architecture's target (a board's, "llvm -mtriple=aarch64-linux-gnu") builds with
// Debian's cross toolchain for it (codegen::LinkSharedLibrary).
// InvalidArgument: no workloads, a workload of an unknown template or with bad args, a target
// no toolchain here builds for. FailedPrecondition: that toolchain is not installed. NotFound: a
// workload has no tuned config (all are listed). Internal: compilation or linking failed.
absl::StatusOr<std::vector<ExportedKernel>> ExportLibrary(
    const db::TuningLog& log, const std::vector<db::Workload>& workloads,
    const ExportOptions& options);

// The config of the best record `b` of `task` to rebuild: its index, or nullopt (the
// unscheduled program) for a nearest shape's record (b.exact false). FailedPrecondition: the
// record was measured in an older version of the task's space (its index now means other
// knob values), so rebuilding it would not give the kernel that was measured.
absl::StatusOr<std::optional<int64_t>> IndexToRebuild(const TuneTask& task,
                                                      const db::BestRecord& b);

// The C symbol of a workload: template and args joined by '_', e.g. dense_64_64_64_float32.
std::string KernelSymbol(const db::Workload& w);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_EXPORT_EXPORT_LIBRARY_H_
