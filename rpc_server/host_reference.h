// The steps of a measurement that the CPU harness (harness.h) and the CUDA harness
// (cuda_harness.h) share, all on the host: allocate the request's tensors and fill its inputs
// from the seed, obtain the expected outputs from the reference artifact (a host shared
// library with the kernel C ABI, whatever the candidate's device) or the reference sums,
// compare the candidate's outputs, and turn a timing into the result.
//
// A step that fails hands back a finished MeasureResult (error class and message); the
// harness returns it as is.
#ifndef TUNEFARM_RPC_SERVER_HOST_REFERENCE_H_
#define TUNEFARM_RPC_SERVER_HOST_REFERENCE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "compiler/abi/kernel_abi.h"
#include "proto/sandbox.pb.h"
#include "rpc_server/tensors.h"
#include "rpc_server/timing.h"

namespace tunefarm {

// A result with `error` and `message` set.
v1::MeasureResult MeasureError(v1::ErrorClass error, std::string message);

// The result of a kernel that returned TF_KERNEL_* code `rc`: OUT_OF_MEMORY for
// TF_KERNEL_OUT_OF_MEMORY, else RUNTIME_ERROR, with a message "<who> returned <name> (<rc>)".
v1::MeasureResult KernelFailed(absl::string_view who, int32_t rc);

// A dlopen'ed host artifact, closed when the object goes.
class LoadedLibrary {
 public:
  ~LoadedLibrary();
  LoadedLibrary(const LoadedLibrary&) = delete;
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;

  // Opens `path` and finds `kernel`. On failure returns null and sets `*error` to a
  // LOAD_ERROR result ("dlopen failed: ..." or "kernel '...' not found in artifact").
  static std::unique_ptr<LoadedLibrary> Open(const std::string& path, const std::string& kernel,
                                             v1::MeasureResult* error);

  TfKernelFn kernel() const { return kernel_; }
  // Another function of the artifact with the kernel C ABI, or null when it has none of that
  // name.
  TfKernelFn Symbol(const std::string& name) const;

  // The heap workspaces the artifact's kernels keep between calls (TF_KERNEL_WORKSPACES_SYMBOL):
  // each one's current block (null before its first call) and size. Empty when the artifact
  // has none; at most kMaxWorkspaces, and a size outside [0, max_bytes] ends the list (the
  // artifact is not trusted: the caller only evicts these ranges from the caches).
  struct Workspace {
    const void* block = nullptr;
    int64_t bytes = 0;
  };
  static constexpr int32_t kMaxWorkspaces = 256;
  std::vector<Workspace> Workspaces(int64_t max_bytes) const;

 private:
  LoadedLibrary() = default;
  void* handle_ = nullptr;
  TfKernelFn kernel_ = nullptr;
};

// The host side of one request: its tensors and what its outputs must hold.
struct HostArguments {
  // Inputs filled from the request's seed; outputs hold whatever the last step left there.
  std::unique_ptr<HostTensors> tensors;
  // Expected outputs, owned by the HostReference (valid until its next Prepare); null when the
  // request checks reference sums or has no reference at all.
  const std::vector<std::string>* expected = nullptr;
};

// Prepares host arguments and keeps reference outputs in an LRU cache keyed by (reference
// hash, kernel, seed, shapes), bounded by 512 MiB. Not thread-safe (the sandbox is serial).
class HostReference {
 public:
  // `max_tensor_bytes` bounds the tensors of one request.
  explicit HostReference(int64_t max_tensor_bytes) : max_tensor_bytes_(max_tensor_bytes) {}

  // Allocates the tensors of `measure`, fills the inputs and finds the expected outputs,
  // running the reference artifact on the host tensors when they are not cached (this
  // overwrites the outputs: poison them before running the candidate).
  // Returns false with `*error` set on failure: OUT_OF_MEMORY / INVALID_REQUEST (allocation),
  // LOAD_ERROR "reference: ..." (reference artifact), RUNTIME_ERROR / OUT_OF_MEMORY (the
  // reference kernel's return code).
  bool Prepare(const v1::SandboxMeasure& measure, HostArguments* args, v1::MeasureResult* error);

 private:
  const std::vector<std::string>* Find(const std::string& key);
  void Store(const std::string& key, std::vector<std::string> outputs);

  const int64_t max_tensor_bytes_;
  std::list<std::pair<std::string, std::vector<std::string>>> lru_;
  absl::flat_hash_map<std::string, decltype(lru_)::iterator> index_;
  int64_t bytes_ = 0;
};

// Compares the outputs now in `args.tensors` with the expected outputs or the request's
// reference sums. Returns "" when they match (or nothing is checked), else the mismatch.
std::string CheckOutputs(const v1::MeasureRequest& request, const HostArguments& args);

// The successful result of `timing` (costs and distribution); sleeps the request's
// cooldown_ms afterwards.
v1::MeasureResult TimedResult(const TimingOutcome& timing, const v1::TimingOptions& options);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_HOST_REFERENCE_H_
