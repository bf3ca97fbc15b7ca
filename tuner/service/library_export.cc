#include "tuner/service/library_export.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/scratch_dir.h"
#include "compiler/codegen/target.h"

namespace tunefarm::tuner {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("export wrote no ", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

absl::StatusOr<ExportedLibraryBytes> ExportLibraryBytes(const db::TuningLog& log,
                                                        const std::vector<db::Workload>& workloads,
                                                        const LibraryExportOptions& options) {
  if (workloads.empty()) return absl::InvalidArgumentError("export: no workloads given");
  if (workloads.size() > static_cast<size_t>(kMaxExportWorkloads)) {
    return absl::InvalidArgumentError(absl::StrCat("export: ", workloads.size(),
                                                   " workloads; one export builds at most ",
                                                   kMaxExportWorkloads));
  }
  std::vector<db::Workload> canonical;
  canonical.reserve(workloads.size());
  for (const db::Workload& w : workloads) {
    absl::StatusOr<db::Workload> made = db::Workload::Make(w.template_name, w.args, 0);
    if (!made.ok()) return made.status();
    canonical.push_back(*std::move(made));
  }
  absl::StatusOr<codegen::Target> target = codegen::ParseTarget(options.target);
  if (!target.ok()) return target.status();
  const bool cuda = target->kind == codegen::Target::Kind::kCUDA;

  absl::StatusOr<ScratchDir> dir = ScratchDir::Make("tunefarm-export");
  if (!dir.ok()) return dir.status();
  ExportedLibraryBytes out;
  out.library_name = cuda ? "kernels.ptx" : "libkernels.so";
  ExportOptions export_options;
  export_options.target = options.target;
  export_options.device_key = options.device_key;
  export_options.allow_nearest = options.allow_nearest;
  export_options.library_path = dir->File(out.library_name);
  export_options.header_path = dir->File("kernels.h");
  absl::StatusOr<std::vector<ExportedKernel>> kernels =
      ExportLibrary(log, canonical, export_options);
  if (!kernels.ok()) return kernels.status();
  out.kernels = *std::move(kernels);

  // Sizes first, so an oversized library is never read into memory.
  int64_t total = 0;
  for (const std::string* path : {&export_options.library_path, &export_options.header_path}) {
    std::error_code ec;
    const uintmax_t size = std::filesystem::file_size(*path, ec);
    if (ec) return absl::InternalError(absl::StrCat("export wrote no ", *path));
    total += static_cast<int64_t>(size);
  }
  if (total > options.max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the exported library and header take ", total, " bytes, over this service's ",
                     "limit of ", options.max_bytes, "; export fewer workloads at once"));
  }
  absl::StatusOr<std::string> library = ReadFile(export_options.library_path);
  if (!library.ok()) return library.status();
  absl::StatusOr<std::string> header = ReadFile(export_options.header_path);
  if (!header.ok()) return header.status();
  out.library = *std::move(library);
  out.header = *std::move(header);
  return out;
}

}  // namespace tunefarm::tuner
