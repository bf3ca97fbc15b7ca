#include "rpc_server/host_reference.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"

namespace tunefarm {
namespace {

constexpr int64_t kReferenceCacheBytes = int64_t{512} << 20;

const char* KernelCodeName(int32_t rc) {
  switch (rc) {
    case TF_KERNEL_BAD_ARG_COUNT:
      return "TF_KERNEL_BAD_ARG_COUNT";
    case TF_KERNEL_BAD_SHAPE:
      return "TF_KERNEL_BAD_SHAPE";
    case TF_KERNEL_BAD_DTYPE:
      return "TF_KERNEL_BAD_DTYPE";
    case TF_KERNEL_BAD_STRIDES:
      return "TF_KERNEL_BAD_STRIDES";
    case TF_KERNEL_OUT_OF_MEMORY:
      return "TF_KERNEL_OUT_OF_MEMORY";
    case TF_KERNEL_NULL_ARG:
      return "TF_KERNEL_NULL_ARG";
    case TF_KERNEL_BAD_DEVICE:
      return "TF_KERNEL_BAD_DEVICE";
    case TF_KERNEL_NO_TILE_STATE:
      return "TF_KERNEL_NO_TILE_STATE (the OS refused the AMX tile state)";
    default:
      return "unknown code";
  }
}

std::string ReferenceKey(const v1::MeasureRequest& r, const std::string& kernel) {
  std::string key = absl::StrCat(r.reference_artifact().hash(), "/", kernel, "/", r.seed());
  for (const v1::TensorArg& t : r.tensors()) {
    absl::StrAppend(&key, "/", t.spec().dtype(), t.is_output() ? "o" : "i");
    for (int64_t d : t.spec().shape()) absl::StrAppend(&key, "x", d);
  }
  return key;
}

}  // namespace

v1::MeasureResult MeasureError(v1::ErrorClass error, std::string message) {
  v1::MeasureResult result;
  result.set_error(error);
  result.set_message(std::move(message));
  return result;
}

v1::MeasureResult KernelFailed(absl::string_view who, int32_t rc) {
  return MeasureError(rc == TF_KERNEL_OUT_OF_MEMORY ? v1::OUT_OF_MEMORY : v1::RUNTIME_ERROR,
                      absl::StrCat(who, " returned ", KernelCodeName(rc), " (", rc, ")"));
}

LoadedLibrary::~LoadedLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::unique_ptr<LoadedLibrary> LoadedLibrary::Open(const std::string& path,
                                                   const std::string& kernel,
                                                   v1::MeasureResult* error) {
  std::unique_ptr<LoadedLibrary> lib(new LoadedLibrary());
  lib->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib->handle_ == nullptr) {
    const char* why = dlerror();
    *error = MeasureError(v1::LOAD_ERROR, absl::StrCat("dlopen failed: ", why ? why : "?"));
    return nullptr;
  }
  lib->kernel_ = reinterpret_cast<TfKernelFn>(dlsym(lib->handle_, kernel.c_str()));
  if (lib->kernel_ == nullptr) {
    *error =
        MeasureError(v1::LOAD_ERROR, absl::StrCat("kernel '", kernel, "' not found in artifact"));
    return nullptr;
  }
  return lib;
}

TfKernelFn LoadedLibrary::Symbol(const std::string& name) const {
  return reinterpret_cast<TfKernelFn>(dlsym(handle_, name.c_str()));
}

std::vector<LoadedLibrary::Workspace> LoadedLibrary::Workspaces(int64_t max_bytes) const {
  auto list = reinterpret_cast<TfKernelWorkspacesFn>(dlsym(handle_, TF_KERNEL_WORKSPACES_SYMBOL));
  if (list == nullptr) return {};
  std::vector<void*> blocks(kMaxWorkspaces, nullptr);
  std::vector<int64_t> bytes(kMaxWorkspaces, 0);
  const int32_t n = std::min(list(blocks.data(), bytes.data(), kMaxWorkspaces), kMaxWorkspaces);
  std::vector<Workspace> out;
  for (int32_t i = 0; i < n; ++i) {
    if (bytes[i] < 0 || bytes[i] > max_bytes) break;
    out.push_back({blocks[i], bytes[i]});
  }
  return out;
}

const std::vector<std::string>* HostReference::Find(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return &it->second->second;
}

void HostReference::Store(const std::string& key, std::vector<std::string> outputs) {
  int64_t bytes = 0;
  for (const std::string& o : outputs) bytes += static_cast<int64_t>(o.size());
  while (!lru_.empty() && bytes_ + bytes > kReferenceCacheBytes) {
    for (const std::string& o : lru_.back().second) bytes_ -= o.size();
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  bytes_ += bytes;
  lru_.emplace_front(key, std::move(outputs));
  index_[key] = lru_.begin();
}

bool HostReference::Prepare(const v1::SandboxMeasure& measure, HostArguments* args,
                            v1::MeasureResult* error) {
  const v1::MeasureRequest& request = measure.request();
  absl::StatusOr<std::unique_ptr<HostTensors>> allocated =
      HostTensors::Allocate(request.tensors(), max_tensor_bytes_);
  if (!allocated.ok()) {
    *error = MeasureError(
        absl::IsResourceExhausted(allocated.status()) ? v1::OUT_OF_MEMORY : v1::INVALID_REQUEST,
        std::string(allocated.status().message()));
    return false;
  }
  args->tensors = std::move(*allocated);
  args->expected = nullptr;
  HostTensors& tensors = *args->tensors;
  tensors.FillInputs(request.seed());
  if (!request.has_reference_artifact()) return true;

  const std::string kernel = request.reference_kernel_name().empty()
                                 ? request.kernel_name()
                                 : request.reference_kernel_name();
  const std::string key = ReferenceKey(request, kernel);
  args->expected = Find(key);
  if (args->expected != nullptr) return true;
  auto reference = LoadedLibrary::Open(measure.reference_path(), kernel, error);
  if (reference == nullptr) {
    error->set_message(absl::StrCat("reference: ", error->message()));
    return false;
  }
  tensors.PoisonOutputs();
  if (int32_t rc = reference->kernel()(tensors.args(), tensors.num_args()); rc != 0) {
    *error = KernelFailed("reference kernel", rc);
    return false;
  }
  Store(key, tensors.CopyOutputs());
  args->expected = Find(key);
  return true;
}

std::string CheckOutputs(const v1::MeasureRequest& request, const HostArguments& args) {
  if (request.has_reference_sums()) {
    return args.tensors->CompareSums(request.reference_sums().sums());
  }
  if (args.expected != nullptr) return args.tensors->CompareOutputs(*args.expected);
  return "";
}

v1::MeasureResult TimedResult(const TimingOutcome& timing, const v1::TimingOptions& options) {
  v1::MeasureResult result;
  result.set_error(v1::ERROR_NONE);
  for (double c : timing.costs) result.add_costs_s(c);
  *result.mutable_distribution() = timing.distribution;
  if (options.cooldown_ms() > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(options.cooldown_ms()));
  }
  return result;
}

}  // namespace tunefarm
