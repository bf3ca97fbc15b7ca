// The job service's ExportLibrary RPC without its transport: tuner::ExportLibrary run into a
// private temporary directory, whose library and header come back as bytes for the client to
// write wherever it wants (the service's file system is not the caller's).
#ifndef TUNEFARM_TUNER_SERVICE_LIBRARY_EXPORT_H_
#define TUNEFARM_TUNER_SERVICE_LIBRARY_EXPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "db/record.h"
#include "db/tuning_log.h"
#include "tuner/export/export_library.h"

namespace tunefarm::tuner {

// Most workloads one export builds (each is a compilation).
inline constexpr int kMaxExportWorkloads = 256;
// Largest library plus header returned by default.
inline constexpr int64_t kDefaultMaxExportBytes = 64 << 20;

struct LibraryExportOptions {
  // Compiler target the configs were tuned for ("llvm" = this machine's CPU); required.
  std::string target;
  // Only records of this device key; empty = any.
  std::string device_key;
  // A workload never tuned takes the plain schedule of its nearest recorded shape.
  bool allow_nearest = false;
  // Library plus header larger than this is refused.
  int64_t max_bytes = kDefaultMaxExportBytes;
};

struct ExportedLibraryBytes {
  // The shared library (a PTX module for a cuda target) and the C header, as written.
  std::string library;
  std::string header;
  // "libkernels.so", or "kernels.ptx" for a cuda target.
  std::string library_name;
  std::vector<ExportedKernel> kernels;
};

// Builds the best recorded config of each of `workloads` (template name and args JSON as a
// user wrote them; canonicalized here, flop ignored) into one library and header and returns
// their bytes; the temporary files are removed either way.
// InvalidArgument: no workloads or more than kMaxExportWorkloads, a workload with an empty
// template or args that are not a JSON array, an unknown template or bad args, a bad target.
// NotFound: a workload has no tuned config (all are listed). FailedPrecondition: a best config
// was measured in an older version of its space. ResourceExhausted: library plus header exceed
// options.max_bytes. Unimplemented: packed weights on a cuda target. Internal: the temporary
// directory, compiling or linking failed.
absl::StatusOr<ExportedLibraryBytes> ExportLibraryBytes(const db::TuningLog& log,
                                                        const std::vector<db::Workload>& workloads,
                                                        const LibraryExportOptions& options);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SERVICE_LIBRARY_EXPORT_H_
