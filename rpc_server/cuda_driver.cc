#include "rpc_server/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"

namespace tunefarm {
namespace {

constexpr char kLibrary[] = "libcuda.so.1";

absl::Status NoDevice(absl::string_view why) {
  return absl::UnavailableError(absl::StrCat("no CUDA device: ", why));
}

// Resolves `name` into `*fn`; false when the library lacks it.
template <typename Fn>
bool Resolve(void* handle, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  return *fn != nullptr;
}

}  // namespace

std::string CudaDeviceInfo::Arch() const { return absl::StrCat("sm_", cc_major, cc_minor); }

absl::StatusOr<CudaDriver*> CudaDriver::Load() {
  // Thread-safe one-time initialization; the driver stays loaded for the life of the process.
  static const absl::StatusOr<CudaDriver*>* const loaded =
      new absl::StatusOr<CudaDriver*>(LoadOnce());
  return *loaded;
}

absl::StatusOr<CudaDriver*> CudaDriver::LoadOnce() {
  const char* override_path = std::getenv("TUNEFARM_LIBCUDA");
  const char* library =
      override_path != nullptr && override_path[0] != '\0' ? override_path : kLibrary;
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return NoDevice(absl::StrCat(library, " not found (", why ? why : "?", ")"));
  }
  // The library stays open whatever happens: libcuda keeps threads and state that outlive any
  // owner we could name. The driver object is released to the caller on success.
  std::unique_ptr<CudaDriver> d(new CudaDriver());
  const char* missing = nullptr;
#define TF_RESOLVE(fn) \
  if (missing == nullptr && !Resolve(handle, #fn, &d->fn)) missing = #fn
  TF_RESOLVE(cuInit);
  TF_RESOLVE(cuDriverGetVersion);
  TF_RESOLVE(cuGetErrorName);
  TF_RESOLVE(cuGetErrorString);
  TF_RESOLVE(cuDeviceGetCount);
  TF_RESOLVE(cuDeviceGet);
  TF_RESOLVE(cuDeviceGetName);
  TF_RESOLVE(cuDeviceGetAttribute);
  TF_RESOLVE(cuDeviceTotalMem_v2);
  TF_RESOLVE(cuCtxCreate_v2);
  TF_RESOLVE(cuCtxDestroy_v2);
  TF_RESOLVE(cuCtxSynchronize);
  TF_RESOLVE(cuModuleLoadDataEx);
  TF_RESOLVE(cuModuleUnload);
  TF_RESOLVE(cuModuleGetFunction);
  TF_RESOLVE(cuFuncGetAttribute);
  TF_RESOLVE(cuMemAlloc_v2);
  TF_RESOLVE(cuMemFree_v2);
  TF_RESOLVE(cuMemcpyHtoD_v2);
  TF_RESOLVE(cuMemcpyDtoH_v2);
  TF_RESOLVE(cuMemsetD8_v2);
  TF_RESOLVE(cuMemsetD8Async);
  TF_RESOLVE(cuStreamSynchronize);
  TF_RESOLVE(cuEventCreate);
  TF_RESOLVE(cuEventDestroy_v2);
  TF_RESOLVE(cuEventRecord);
  TF_RESOLVE(cuEventSynchronize);
  TF_RESOLVE(cuLaunchKernel);
#undef TF_RESOLVE
  if (missing == nullptr && !Resolve(handle, "cuEventElapsedTime_v2", &d->cuEventElapsedTime) &&
      !Resolve(handle, "cuEventElapsedTime", &d->cuEventElapsedTime)) {
    missing = "cuEventElapsedTime";
  }
  Resolve(handle, "cuFuncGetParamInfo", &d->cuFuncGetParamInfo);  // optional
  if (missing != nullptr) {
    return NoDevice(absl::StrCat(library, " lacks ", missing, " (driver too old?)"));
  }
  if (CUresult r = d->cuInit(0); r != CUDA_SUCCESS) {
    return NoDevice(absl::StrCat("cuInit failed: ", d->ErrorString(r)));
  }
  if (d->cuDriverGetVersion(&d->driver_version_) != CUDA_SUCCESS) d->driver_version_ = 0;
  if (CUresult r = d->cuDeviceGetCount(&d->device_count_); r != CUDA_SUCCESS) {
    return NoDevice(absl::StrCat("cuDeviceGetCount failed: ", d->ErrorString(r)));
  }
  if (d->device_count_ == 0) return NoDevice("cuDeviceGetCount returned 0");
  return d.release();
}

std::string CudaDriver::ErrorName(CUresult result) const {
  const char* s = nullptr;
  if (cuGetErrorName(result, &s) != CUDA_SUCCESS || s == nullptr) {
    return absl::StrCat("CUresult ", result);
  }
  return s;
}

std::string CudaDriver::ErrorString(CUresult result) const {
  const char* s = nullptr;
  if (cuGetErrorString(result, &s) != CUDA_SUCCESS || s == nullptr) return "unknown error";
  return s;
}

absl::Status CudaDriver::Check(CUresult result, absl::string_view what) const {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  std::string message = absl::StrCat(what, ": ", ErrorName(result), ": ", ErrorString(result));
  switch (result) {
    case CUDA_ERROR_OUT_OF_MEMORY:
      return absl::ResourceExhaustedError(message);
    case CUDA_ERROR_NOT_FOUND:
      return absl::NotFoundError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::StatusOr<CudaDeviceInfo> CudaDriver::DeviceInfo(int ordinal) const {
  if (ordinal < 0 || ordinal >= device_count_) {
    return absl::OutOfRangeError(absl::StrCat("no CUDA device: cuda:", ordinal, " requested, ",
                                              device_count_, " device(s) present"));
  }
  CUdevice dev = 0;
  if (absl::Status s = Check(cuDeviceGet(&dev, ordinal), "cuDeviceGet"); !s.ok()) return s;
  CudaDeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  if (absl::Status s = Check(cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
      !s.ok()) {
    return s;
  }
  info.name = name;
  size_t memory = 0;
  if (absl::Status s = Check(cuDeviceTotalMem_v2(&memory, dev), "cuDeviceTotalMem"); !s.ok()) {
    return s;
  }
  info.memory_bytes = static_cast<int64_t>(memory);
  int l2 = 0;
  struct Query {
    CUdevice_attribute attribute;
    int* value;
  };
  const Query queries[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.cc_major},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.cc_minor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.multiprocessors},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &l2},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.max_threads_per_block},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &info.max_block[0]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &info.max_block[1]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &info.max_block[2]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &info.max_grid[0]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &info.max_grid[1]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &info.max_grid[2]},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &info.max_shared_bytes_per_block},
  };
  for (const Query& q : queries) {
    if (absl::Status s = Check(cuDeviceGetAttribute(q.value, q.attribute, dev),
                               absl::StrCat("cuDeviceGetAttribute(", q.attribute, ")"));
        !s.ok()) {
      return s;
    }
  }
  info.l2_bytes = l2;
  return info;
}

}  // namespace tunefarm
