#include "rpc_server/harness.h"

#include <dlfcn.h>

#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "compiler/abi/kernel_abi.h"
#include "rpc_server/tensors.h"
#include "rpc_server/timing.h"

namespace tunefarm {
namespace {

constexpr int64_t kReferenceCacheBytes = int64_t{512} << 20;
// Elements of the calibration kernel's buffer (64 KiB of floats: stays in L2).
constexpr int kCalibrationElements = 16384;
constexpr int kCalibrationSweeps = 64;

v1::MeasureResult Error(v1::ErrorClass error, std::string message) {
  v1::MeasureResult result;
  result.set_error(error);
  result.set_message(std::move(message));
  return result;
}

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
    default:
      return "unknown code";
  }
}

v1::MeasureResult KernelFailed(absl::string_view who, int32_t rc) {
  return Error(rc == TF_KERNEL_OUT_OF_MEMORY ? v1::OUT_OF_MEMORY : v1::RUNTIME_ERROR,
               absl::StrCat(who, " returned ", KernelCodeName(rc), " (", rc, ")"));
}

// A dlopen'ed artifact, closed when the candidate is done.
class LoadedLibrary {
 public:
  ~LoadedLibrary() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  // Errors are LOAD_ERROR results; `fn` is set on success.
  static std::unique_ptr<LoadedLibrary> Open(const std::string& path, const std::string& kernel,
                                             TfKernelFn* fn, v1::MeasureResult* error) {
    auto lib = std::unique_ptr<LoadedLibrary>(new LoadedLibrary());
    lib->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib->handle_ == nullptr) {
      const char* why = dlerror();
      *error = Error(v1::LOAD_ERROR, absl::StrCat("dlopen failed: ", why ? why : "?"));
      return nullptr;
    }
    *fn = reinterpret_cast<TfKernelFn>(dlsym(lib->handle_, kernel.c_str()));
    if (*fn == nullptr) {
      *error = Error(v1::LOAD_ERROR, absl::StrCat("kernel '", kernel, "' not found in artifact"));
      return nullptr;
    }
    return lib;
  }

 private:
  LoadedLibrary() = default;
  void* handle_ = nullptr;
};

std::string ReferenceKey(const v1::MeasureRequest& r, const std::string& kernel) {
  std::string key = absl::StrCat(r.reference_artifact().hash(), "/", kernel, "/", r.seed());
  for (const v1::TensorArg& t : r.tensors()) {
    absl::StrAppend(&key, "/", t.spec().dtype(), t.is_output() ? "o" : "i");
    for (int64_t d : t.spec().shape()) absl::StrAppend(&key, "x", d);
  }
  return key;
}

}  // namespace

const std::vector<std::string>* Harness::FindReference(const std::string& key) {
  auto it = reference_index_.find(key);
  if (it == reference_index_.end()) return nullptr;
  reference_lru_.splice(reference_lru_.begin(), reference_lru_, it->second);
  return &it->second->second;
}

void Harness::StoreReference(const std::string& key, std::vector<std::string> outputs) {
  int64_t bytes = 0;
  for (const std::string& o : outputs) bytes += static_cast<int64_t>(o.size());
  while (!reference_lru_.empty() && reference_bytes_ + bytes > kReferenceCacheBytes) {
    for (const std::string& o : reference_lru_.back().second) reference_bytes_ -= o.size();
    reference_index_.erase(reference_lru_.back().first);
    reference_lru_.pop_back();
  }
  reference_bytes_ += bytes;
  reference_lru_.emplace_front(key, std::move(outputs));
  reference_index_[key] = reference_lru_.begin();
}

v1::MeasureResult Harness::Measure(const v1::SandboxMeasure& measure) {
  const v1::MeasureRequest& request = measure.request();
  absl::StatusOr<std::unique_ptr<HostTensors>> allocated =
      HostTensors::Allocate(request.tensors(), max_tensor_bytes_);
  if (!allocated.ok()) {
    return Error(
        absl::IsResourceExhausted(allocated.status()) ? v1::OUT_OF_MEMORY : v1::INVALID_REQUEST,
        std::string(allocated.status().message()));
  }
  HostTensors& tensors = **allocated;
  tensors.FillInputs(request.seed());

  const std::vector<std::string>* expected = nullptr;
  if (request.has_reference_artifact()) {
    const std::string ref_kernel = request.reference_kernel_name().empty()
                                       ? request.kernel_name()
                                       : request.reference_kernel_name();
    const std::string key = ReferenceKey(request, ref_kernel);
    expected = FindReference(key);
    if (expected == nullptr) {
      TfKernelFn ref_fn = nullptr;
      v1::MeasureResult error;
      auto ref = LoadedLibrary::Open(measure.reference_path(), ref_kernel, &ref_fn, &error);
      if (ref == nullptr) {
        error.set_message(absl::StrCat("reference: ", error.message()));
        return error;
      }
      tensors.PoisonOutputs();
      if (int32_t rc = ref_fn(tensors.args(), tensors.num_args()); rc != 0) {
        return KernelFailed("reference kernel", rc);
      }
      StoreReference(key, tensors.CopyOutputs());
      expected = FindReference(key);
    }
  }

  TfKernelFn fn = nullptr;
  v1::MeasureResult error;
  auto lib = LoadedLibrary::Open(measure.artifact_path(), request.kernel_name(), &fn, &error);
  if (lib == nullptr) return error;

  // Warm-up run, on poisoned outputs: it is also the checked run.
  tensors.PoisonOutputs();
  if (int32_t rc = fn(tensors.args(), tensors.num_args()); rc != 0)
    return KernelFailed("kernel", rc);
  std::string mismatch;
  if (expected != nullptr) mismatch = tensors.CompareOutputs(*expected);
  if (request.has_reference_sums()) mismatch = tensors.CompareSums(request.reference_sums().sums());
  if (!mismatch.empty()) return Error(v1::WRONG_ANSWER, mismatch);

  TimingOutcome timing =
      TimeKernel([&] { return fn(tensors.args(), tensors.num_args()); }, request.timing());
  if (timing.kernel_rc != 0) return KernelFailed("kernel (timed run)", timing.kernel_rc);
  v1::MeasureResult result;
  result.set_error(v1::ERROR_NONE);
  for (double c : timing.costs) result.add_costs_s(c);
  *result.mutable_distribution() = timing.distribution;
  if (request.timing().cooldown_ms() > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(request.timing().cooldown_ms()));
  }
  return result;
}

std::vector<double> Harness::Calibrate(int repeats) {
  static float buffer[kCalibrationElements];
  for (int i = 0; i < kCalibrationElements; ++i) buffer[i] = static_cast<float>(i % 7) * 0.25f;
  std::vector<double> costs;
  volatile float sink = 0;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    float acc = 0;
    for (int s = 0; s < kCalibrationSweeps; ++s) {
      for (int i = 0; i < kCalibrationElements; ++i) acc = acc * 0.999f + buffer[i];
    }
    sink = sink + acc;
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    costs.push_back(elapsed.count());
  }
  return costs;
}

}  // namespace tunefarm
