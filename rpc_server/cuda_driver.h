// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and dlsym of the few entry
// points a worker needs. Nothing here includes or links CUDA: the types, enum values and
// prototypes below are declared by hand, checked against cuda.h of CUDA 13.0. Where cuda.h
// maps a name to a versioned symbol (cuMemAlloc -> cuMemAlloc_v2, ...), the versioned symbol
// is resolved, exactly as a program compiled against cuda.h would call it; those symbols exist
// in every driver since CUDA 4.0 (cuEventElapsedTime_v2 since 12.8: resolved when present).
// One exception: CUDA 13's cuda.h maps cuCtxCreate to cuCtxCreate_v4 (with extra creation
// parameters); this uses cuCtxCreate_v2, which every driver still exports.
//
// A machine without a GPU or driver builds and runs everything else: Load() then returns
// Unavailable("no CUDA device: ...").
#ifndef TUNEFARM_RPC_SERVER_CUDA_DRIVER_H_
#define TUNEFARM_RPC_SERVER_CUDA_DRIVER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tunefarm {

// Driver API types (cuda.h). Handles are opaque pointers; CUresult and enums are ints.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uint64_t;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUjit_option = int;
using CUdevice_attribute = int;
using CUfunction_attribute = int;

// CUresult values this project names (cuda.h: enum cudaError_enum).
inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;

// Device attributes (cuda.h: enum CUdevice_attribute_enum).
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

// Function attributes (cuda.h: enum CUfunction_attribute_enum).
inline constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
inline constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;

// JIT options of cuModuleLoadDataEx (cuda.h: enum CUjit_option_enum).
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// Context creation flag: the host thread sleeps (instead of spinning) while it waits for the
// GPU, so a waiting worker leaves the CPU to its neighbours and never trips RLIMIT_CPU.
inline constexpr unsigned int CU_CTX_SCHED_BLOCKING_SYNC = 0x04;
// Event flags: default (timing enabled) and blocking synchronization.
inline constexpr unsigned int CU_EVENT_DEFAULT = 0x0;
inline constexpr unsigned int CU_EVENT_BLOCKING_SYNC = 0x1;

// What a worker reports of a device and checks launches against.
struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  // Compute capability, e.g. 9 and 0 for an H100.
  int cc_major = 0;
  int cc_minor = 0;
  int multiprocessors = 0;
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
  // Launch limits.
  int max_threads_per_block = 0;
  int max_block[3] = {0, 0, 0};
  int max_grid[3] = {0, 0, 0};
  int max_shared_bytes_per_block = 0;

  // "sm_90".
  std::string Arch() const;
};

// The loaded driver: one per process (libcuda itself is process-wide), never unloaded. Every
// function pointer is resolved by Load(); call them directly, e.g.
//   CUresult r = driver->cuMemAlloc_v2(&ptr, bytes);
//   if (absl::Status s = driver->Check(r, "cuMemAlloc"); !s.ok()) ...
class CudaDriver {
 public:
  // dlopens libcuda.so.1 (or the library at $TUNEFARM_LIBCUDA, e.g. a fake driver in
  // tests), resolves every entry point below and calls cuInit(0). The first call does the
  // work; later calls return the same driver or the same error.
  // Errors (all Unavailable):
  //   "no CUDA device: libcuda.so.1 not found (<dlerror>)"
  //   "no CUDA device: libcuda.so.1 lacks <symbol> (driver too old?)"
  //   "no CUDA device: cuInit failed: <cuGetErrorString text>"
  //   "no CUDA device: cuDeviceGetCount returned 0"
  static absl::StatusOr<CudaDriver*> Load();

  // "CUDA_ERROR_ILLEGAL_ADDRESS" and "an illegal memory access was encountered" for a code;
  // "CUresult <n>" / "unknown error" when the driver does not know it.
  std::string ErrorName(CUresult result) const;
  std::string ErrorString(CUresult result) const;

  // OK for CUDA_SUCCESS, else a status "<what>: <name>: <string>" with a code by kind:
  // ResourceExhausted (out of memory), NotFound (symbol not found), Internal (the rest).
  absl::Status Check(CUresult result, absl::string_view what) const;

  // Devices visible to this process.
  int DeviceCount() const { return device_count_; }
  // Name, compute capability, SM count, L2 size, memory and launch limits of a device.
  // Errors: OutOfRange (no such ordinal), Internal (a query failed).
  absl::StatusOr<CudaDeviceInfo> DeviceInfo(int ordinal) const;
  // As cuDriverGetVersion, e.g. 13000 for CUDA 13.0.
  int DriverVersion() const { return driver_version_; }

  // Entry points (cuda.h prototypes with hand-declared types).
  CUresult (*cuInit)(unsigned int flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int* version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char** str) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char** str) = nullptr;
  CUresult (*cuDeviceGetCount)(int* count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char* name, int len, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int* value, CUdevice_attribute attribute,
                                   CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem_v2)(size_t* bytes, CUdevice device) = nullptr;
  CUresult (*cuCtxCreate_v2)(CUcontext* context, unsigned int flags, CUdevice device) = nullptr;
  CUresult (*cuCtxDestroy_v2)(CUcontext context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule* module, const void* image, unsigned int num_options,
                                 CUjit_option* options, void** option_values) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module,
                                  const char* name) = nullptr;
  CUresult (*cuFuncGetAttribute)(int* value, CUfunction_attribute attribute,
                                 CUfunction function) = nullptr;
  // Optional (drivers from CUDA 12.4 on); null when the driver lacks it.
  CUresult (*cuFuncGetParamInfo)(CUfunction function, size_t index, size_t* offset,
                                 size_t* size) = nullptr;
  CUresult (*cuMemAlloc_v2)(CUdeviceptr* ptr, size_t bytes) = nullptr;
  CUresult (*cuMemFree_v2)(CUdeviceptr ptr) = nullptr;
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr dst, const void* src, size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH_v2)(void* dst, CUdeviceptr src, size_t bytes) = nullptr;
  CUresult (*cuMemsetD8_v2)(CUdeviceptr dst, unsigned char value, size_t count) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t count,
                              CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuEventCreate)(CUevent* event, unsigned int flags) = nullptr;
  CUresult (*cuEventDestroy_v2)(CUevent event) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  // cuEventElapsedTime_v2 where the driver has it, else cuEventElapsedTime (same signature).
  CUresult (*cuEventElapsedTime)(float* ms, CUevent start, CUevent end) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                             unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                             unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                             void** params, void** extra) = nullptr;

 private:
  CudaDriver() = default;
  static absl::StatusOr<CudaDriver*> LoadOnce();

  int device_count_ = 0;
  int driver_version_ = 0;
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_CUDA_DRIVER_H_
