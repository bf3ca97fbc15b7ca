// A built kernel library loaded into a benchmark's process the way the farm's workers load
// artifacts and a deployment loads `tunefarm export`'s output: the shared library's bytes
// written to a file and dlopen'ed. Benchmarks time this, not a JIT build of the same config:
// it is the code that was measured and that ships.
//
//   auto lib = LoadedLibrary::Load(*codegen::BuildSharedLibrary(funcs, target));
//   TfKernelFn kernel = *lib->Kernel("tunefarm_kernel");
#ifndef TUNEFARM_BENCH_LOADED_LIBRARY_H_
#define TUNEFARM_BENCH_LOADED_LIBRARY_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/abi/kernel_abi.h"

namespace tunefarm::bench {

class LoadedLibrary {
 public:
  // Internal: the file cannot be written or dlopen refuses it (its message).
  static absl::StatusOr<LoadedLibrary> Load(const std::string& bytes);
  // NotFound: no such symbol.
  absl::StatusOr<TfKernelFn> Kernel(const std::string& name) const;

 private:
  // Never closed: kernels may be called until the process exits.
  void* handle_ = nullptr;
};

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_LOADED_LIBRARY_H_
