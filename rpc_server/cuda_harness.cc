#include "rpc_server/cuda_harness.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "rpc_server/timing.h"

namespace tunefarm {
namespace {

// JIT log buffers of cuModuleLoadDataEx; ptxas errors beyond this are cut.
constexpr size_t kJitLogBytes = 16 << 10;
// L2 flush buffer when the device does not report its L2 size.
constexpr size_t kDefaultFlushBytes = size_t{64} << 20;
// Calibration launch: kCalibrationBlocksPerSm blocks of kCalibrationThreads threads per SM
// (1024 threads per SM: one wave on every architecture since sm_75).
constexpr int kCalibrationBlocksPerSm = 4;
constexpr int kCalibrationThreads = 256;

// A chain of 65536 dependent FMAs per thread, seeded by the thread index, stored to
// out[global thread index] so it cannot be optimized away. PTX ISA 7.0 (CUDA 11.0), so every
// driver since 11.0 loads it; `.target sm_52` JIT-compiles for any newer device.
constexpr char kCalibrationPtx[] = R"(.version 7.0
.target sm_52
.address_size 64

.visible .entry tunefarm_calibrate(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<5>;

  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  cvt.rn.f32.u32 %f1, %r3;
  mov.f32 %f2, 0f00000000;
  mov.u32 %r5, 0;
LOOP:
  fma.rn.f32 %f2, %f2, 0f3F7FBE77, %f1;
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p1, %r5, 65536;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f2;
  ret;
}
)";

// Launch dimensions with CUDA's dim3 default (0 -> 1).
struct Dims {
  unsigned int x, y, z;
  explicit Dims(const v1::Dim3& d)
      : x(d.x() > 0 ? d.x() : 1), y(d.y() > 0 ? d.y() : 1), z(d.z() > 0 ? d.z() : 1) {}
};

// A loaded module, unloaded when the object goes.
class ScopedModule {
 public:
  ScopedModule(CudaDriver* driver, CUmodule module) : driver_(driver), module_(module) {}
  ~ScopedModule() {
    if (module_ != nullptr) driver_->cuModuleUnload(module_);
  }
  ScopedModule(const ScopedModule&) = delete;
  ScopedModule& operator=(const ScopedModule&) = delete;
  CUmodule get() const { return module_; }

 private:
  CudaDriver* driver_;
  CUmodule module_;
};

// Device buffers of one request, freed when the object goes.
class DeviceBuffers {
 public:
  explicit DeviceBuffers(CudaDriver* driver) : driver_(driver) {}
  ~DeviceBuffers() {
    for (CUdeviceptr p : pointers_) driver_->cuMemFree_v2(p);
  }
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;

  CUresult Add(size_t bytes) {
    CUdeviceptr p = 0;
    // cuMemAlloc refuses 0 bytes; an empty tensor still gets a valid, distinct pointer.
    CUresult r = driver_->cuMemAlloc_v2(&p, bytes > 0 ? bytes : 256);
    if (r == CUDA_SUCCESS) pointers_.push_back(p);
    return r;
  }
  CUdeviceptr operator[](size_t i) const { return pointers_[i]; }
  // Kernel parameters: one pointer to each CUdeviceptr, in tensor order.
  std::vector<void*> Params() {
    std::vector<void*> params;
    for (CUdeviceptr& p : pointers_) params.push_back(&p);
    return params;
  }

 private:
  CudaDriver* driver_;
  std::vector<CUdeviceptr> pointers_;
};

// JIT-compiles `ptx` into a module. Errors: InvalidArgument carrying the ptxas error log.
absl::StatusOr<CUmodule> LoadPtx(CudaDriver* d, const std::string& ptx) {
  std::string error_log(kJitLogBytes, '\0');
  std::string info_log(kJitLogBytes, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(uintptr_t{kJitLogBytes}),
                    info_log.data(), reinterpret_cast<void*>(uintptr_t{kJitLogBytes})};
  CUmodule module = nullptr;
  CUresult r = d->cuModuleLoadDataEx(&module, ptx.c_str(), 4, options, values);
  if (r == CUDA_SUCCESS) return module;
  error_log.resize(error_log.find('\0'));
  std::string log(absl::StripAsciiWhitespace(error_log));
  return absl::InvalidArgumentError(absl::StrCat("cuModuleLoadDataEx failed: ", d->ErrorName(r),
                                                 ": ", d->ErrorString(r),
                                                 log.empty() ? "" : "; ptxas log:\n", log));
}

std::string DimsText(const Dims& d) { return absl::StrCat("(", d.x, ", ", d.y, ", ", d.z, ")"); }
std::string DimsText(const int (&d)[3]) {
  return absl::StrCat("(", d[0], ", ", d[1], ", ", d[2], ")");
}

}  // namespace

absl::string_view CalibrationPtx() { return kCalibrationPtx; }

absl::StatusOr<v1::GpuModule> ParseGpuModule(absl::string_view bytes) {
  v1::GpuModule module;
  if (!module.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError(absl::StrCat("artifact is not a GpuModule (", bytes.size(),
                                            " bytes that do not parse as gpu_module.proto)"));
  }
  if (module.ptx().empty()) return absl::InvalidArgumentError("GpuModule has no PTX");
  if (module.entry().empty()) return absl::InvalidArgumentError("GpuModule names no entry");
  for (const v1::Dim3* d : {&module.grid(), &module.block()}) {
    if (d->x() < 0 || d->y() < 0 || d->z() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("GpuModule has a negative launch dimension: grid (", module.grid().x(), ", ",
                       module.grid().y(), ", ", module.grid().z(), "), block (", module.block().x(),
                       ", ", module.block().y(), ", ", module.block().z(), ")"));
    }
  }
  return module;
}

absl::StatusOr<v1::GpuModule> ReadGpuModule(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open artifact '", path, "'"));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return absl::InternalError(absl::StrCat("cannot read artifact '", path, "'"));
  return ParseGpuModule(content.str());
}

absl::StatusOr<int> ParseSmArch(absl::string_view arch) {
  if (arch.empty()) return 0;
  absl::string_view rest = arch;
  size_t digits = 0;
  if (absl::ConsumePrefix(&rest, "sm_")) {
    while (digits < rest.size() && absl::ascii_isdigit(rest[digits])) ++digits;
  }
  int cc = 0;
  if (digits == 0 || !absl::SimpleAtoi(rest.substr(0, digits), &cc)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad GPU architecture '", arch, "' (expected e.g. sm_90)"));
  }
  return cc;
}

absl::Status CheckLaunch(const v1::GpuModule& module, const CudaDeviceInfo& device) {
  absl::StatusOr<int> arch = ParseSmArch(module.arch());
  if (!arch.ok()) return arch.status();
  const int device_cc = device.cc_major * 10 + device.cc_minor;
  if (*arch > device_cc) {
    return absl::InvalidArgumentError(absl::StrCat("module is built for ", module.arch(),
                                                   " but the device (", device.name, ") is ",
                                                   device.Arch()));
  }
  const Dims block(module.block());
  const Dims grid(module.grid());
  const unsigned int block_dims[3] = {block.x, block.y, block.z};
  const unsigned int grid_dims[3] = {grid.x, grid.y, grid.z};
  for (int i = 0; i < 3; ++i) {
    if (block_dims[i] > static_cast<unsigned int>(device.max_block[i])) {
      return absl::InvalidArgumentError(absl::StrCat("block ", DimsText(block),
                                                     " exceeds the device's maximum block ",
                                                     DimsText(device.max_block)));
    }
    if (grid_dims[i] > static_cast<unsigned int>(device.max_grid[i])) {
      return absl::InvalidArgumentError(absl::StrCat("grid ", DimsText(grid),
                                                     " exceeds the device's maximum grid ",
                                                     DimsText(device.max_grid)));
    }
  }
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (threads > static_cast<uint64_t>(device.max_threads_per_block)) {
    return absl::InvalidArgumentError(absl::StrCat("block ", DimsText(block), " has ", threads,
                                                   " threads; the device allows ",
                                                   device.max_threads_per_block));
  }
  if (module.shared_bytes() > device.max_shared_bytes_per_block) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel declares ", module.shared_bytes(), " bytes of shared memory; the device allows ",
        device.max_shared_bytes_per_block, " per block"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CudaHarness>> CudaHarness::Create(int ordinal,
                                                                 int64_t max_tensor_bytes) {
  absl::StatusOr<CudaDriver*> driver = CudaDriver::Load();
  if (!driver.ok()) return driver.status();
  absl::StatusOr<CudaDeviceInfo> info = (*driver)->DeviceInfo(ordinal);
  if (!info.ok()) {
    return absl::IsOutOfRange(info.status()) ? absl::UnavailableError(info.status().message())
                                             : info.status();
  }
  CudaDriver* d = *driver;
  std::unique_ptr<CudaHarness> harness(new CudaHarness(d, *info, max_tensor_bytes));
  CUdevice dev = 0;
  if (absl::Status s = d->Check(d->cuDeviceGet(&dev, ordinal), "cuDeviceGet"); !s.ok()) return s;
  if (absl::Status s = d->Check(
          d->cuCtxCreate_v2(&harness->context_, CU_CTX_SCHED_BLOCKING_SYNC, dev), "cuCtxCreate");
      !s.ok()) {
    return s;
  }
  for (CUevent* e : {&harness->start_, &harness->end_}) {
    if (absl::Status s = d->Check(d->cuEventCreate(e, CU_EVENT_BLOCKING_SYNC), "cuEventCreate");
        !s.ok()) {
      return s;
    }
  }
  return harness;
}

CudaHarness::~CudaHarness() {
  // After a sticky error these calls fail harmlessly; destroying the context frees the rest.
  if (calibration_out_ != 0) driver_->cuMemFree_v2(calibration_out_);
  if (calibration_module_ != nullptr) driver_->cuModuleUnload(calibration_module_);
  if (flush_buffer_ != 0) driver_->cuMemFree_v2(flush_buffer_);
  if (start_ != nullptr) driver_->cuEventDestroy_v2(start_);
  if (end_ != nullptr) driver_->cuEventDestroy_v2(end_);
  if (context_ != nullptr) driver_->cuCtxDestroy_v2(context_);
}

v1::MeasureResult CudaHarness::Failed(absl::string_view what, CUresult result) {
  // A sticky error poisons the context: every later call, a plain synchronize included,
  // returns it again. A non-sticky one (e.g. too many resources requested for launch) leaves
  // the context usable and the synchronize succeeds.
  if (driver_->cuCtxSynchronize() != CUDA_SUCCESS) context_lost_ = true;
  return MeasureError(
      result == CUDA_ERROR_OUT_OF_MEMORY ? v1::OUT_OF_MEMORY : v1::RUNTIME_ERROR,
      absl::StrCat(what, ": ", driver_->ErrorName(result), ": ", driver_->ErrorString(result),
                   context_lost_ ? " (CUDA context lost; sandbox restarts)" : ""));
}

CUresult CudaHarness::TimeLaunches(const std::function<CUresult()>& launch, int64_t number,
                                   double* seconds_per_launch) {
  CUresult r = driver_->cuEventRecord(start_, nullptr);
  for (int64_t i = 0; r == CUDA_SUCCESS && i < number; ++i) r = launch();
  if (r == CUDA_SUCCESS) r = driver_->cuEventRecord(end_, nullptr);
  if (r == CUDA_SUCCESS) r = driver_->cuEventSynchronize(end_);
  float ms = 0;
  if (r == CUDA_SUCCESS) r = driver_->cuEventElapsedTime(&ms, start_, end_);
  *seconds_per_launch = ms / 1000.0 / static_cast<double>(number);
  return r;
}

bool CudaHarness::EnsureFlushBuffer() {
  if (flush_buffer_ != 0) return true;
  size_t bytes =
      device_.l2_bytes > 0 ? 2 * static_cast<size_t>(device_.l2_bytes) : kDefaultFlushBytes;
  if (driver_->cuMemAlloc_v2(&flush_buffer_, bytes) != CUDA_SUCCESS) {
    flush_buffer_ = 0;
    return false;
  }
  flush_bytes_ = bytes;
  return true;
}

v1::MeasureResult CudaHarness::Measure(const v1::SandboxMeasure& measure) {
  CudaDriver* const d = driver_;
  const v1::MeasureRequest& request = measure.request();
  if (request.packed_args_size() > 0) {
    return MeasureError(v1::INVALID_REQUEST,
                        "weights packed ahead of time are for CPU kernels only");
  }
  absl::StatusOr<v1::GpuModule> module = ReadGpuModule(measure.artifact_path());
  if (!module.ok()) return MeasureError(v1::LOAD_ERROR, std::string(module.status().message()));
  if (absl::Status s = CheckLaunch(*module, device_); !s.ok()) {
    return MeasureError(v1::INVALID_REQUEST, std::string(s.message()));
  }

  HostArguments args;
  v1::MeasureResult error;
  if (!reference_.Prepare(measure, &args, &error)) return error;
  HostTensors& host = *args.tensors;

  absl::StatusOr<CUmodule> loaded = LoadPtx(d, module->ptx());
  if (!loaded.ok()) return MeasureError(v1::LOAD_ERROR, std::string(loaded.status().message()));
  ScopedModule scoped_module(d, *loaded);
  CUfunction fn = nullptr;
  if (CUresult r = d->cuModuleGetFunction(&fn, scoped_module.get(), module->entry().c_str());
      r != CUDA_SUCCESS) {
    return MeasureError(v1::LOAD_ERROR, absl::StrCat("kernel entry '", module->entry(),
                                                     "' not found in module: ", d->ErrorName(r)));
  }

  // The kernel's own limit on threads per block (register use) and its parameter list.
  const Dims grid(module->grid());
  const Dims block(module->block());
  int fn_max_threads = 0;
  if (d->cuFuncGetAttribute(&fn_max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) ==
          CUDA_SUCCESS &&
      uint64_t{block.x} * block.y * block.z > static_cast<uint64_t>(fn_max_threads)) {
    return MeasureError(v1::INVALID_REQUEST,
                        absl::StrCat("block ", DimsText(block), " exceeds the kernel's limit of ",
                                     fn_max_threads, " threads per block (registers)"));
  }
  if (d->cuFuncGetParamInfo != nullptr) {
    // Parameters are counted until the index is refused as out of range; any other answer
    // (a driver that cannot tell) skips the check.
    size_t offset = 0, size = 0;
    int count = 0;
    CUresult r = CUDA_SUCCESS;
    while ((r = d->cuFuncGetParamInfo(fn, count, &offset, &size)) == CUDA_SUCCESS) {
      if (size != sizeof(CUdeviceptr)) {
        return MeasureError(v1::INVALID_REQUEST,
                            absl::StrCat("kernel parameter ", count, " is ", size,
                                         " bytes; every parameter must be a device pointer"));
      }
      ++count;
    }
    if (r == CUDA_ERROR_INVALID_VALUE && count != host.num_args()) {
      return MeasureError(
          v1::INVALID_REQUEST,
          absl::StrCat("kernel '", module->entry(), "' takes ", count,
                       " parameters but the request has ", host.num_args(), " tensors"));
    }
  }

  DeviceBuffers buffers(d);
  for (int i = 0; i < host.num_args(); ++i) {
    if (CUresult r = buffers.Add(host.bytes(i)); r != CUDA_SUCCESS) {
      return Failed(absl::StrCat("cuMemAlloc of ", host.bytes(i), " bytes for tensor ", i), r);
    }
  }
  // Inputs, and outputs poisoned on the device too, so a kernel that skips writes fails.
  host.PoisonOutputs();
  for (int i = 0; i < host.num_args(); ++i) {
    if (host.bytes(i) == 0) continue;
    if (CUresult r = d->cuMemcpyHtoD_v2(buffers[i], host.data(i), host.bytes(i));
        r != CUDA_SUCCESS) {
      return Failed(absl::StrCat("copy of tensor ", i, " to the device"), r);
    }
  }
  std::vector<void*> params = buffers.Params();
  auto launch = [&] {
    return d->cuLaunchKernel(fn, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                             /*shared_bytes=*/0, /*stream=*/nullptr, params.data(), nullptr);
  };

  // The checked launch.
  if (CUresult r = launch(); r != CUDA_SUCCESS) return Failed("kernel launch", r);
  if (CUresult r = d->cuCtxSynchronize(); r != CUDA_SUCCESS) return Failed("kernel", r);
  for (int i = 0; i < host.num_args(); ++i) {
    if (!host.is_output(i) || host.bytes(i) == 0) continue;
    if (CUresult r = d->cuMemcpyDtoH_v2(host.data(i), buffers[i], host.bytes(i));
        r != CUDA_SUCCESS) {
      return Failed(absl::StrCat("copy of output ", i, " to the host"), r);
    }
  }
  if (std::string mismatch = CheckOutputs(request, args); !mismatch.empty()) {
    return MeasureError(v1::WRONG_ANSWER, mismatch);
  }

  // Warm-up launch, then the timed repeats.
  if (CUresult r = launch(); r != CUDA_SUCCESS) return Failed("kernel launch (warm-up)", r);
  if (CUresult r = d->cuCtxSynchronize(); r != CUDA_SUCCESS) return Failed("kernel (warm-up)", r);
  if (request.timing().flush_cache() && !EnsureFlushBuffer()) {
    return MeasureError(v1::OUT_OF_MEMORY,
                        "cannot allocate the L2 flush buffer (twice the L2 size) on the device");
  }
  auto time_repeat = [&](int64_t number, int32_t* rc) -> double {
    double seconds = 0;
    if (CUresult r = TimeLaunches(launch, number, &seconds); r != CUDA_SUCCESS) {
      *rc = r;
      return -1;
    }
    return seconds;
  };
  // Queued on the same stream before the start event, so the memset finishes before the
  // timed interval begins.
  auto flush = [&] { d->cuMemsetD8Async(flush_buffer_, ++flush_value_, flush_bytes_, nullptr); };
  TimingOutcome timing = TimeRepeats(time_repeat, flush, request.timing());
  if (timing.kernel_rc != 0) return Failed("kernel (timed run)", timing.kernel_rc);
  return TimedResult(timing, request.timing());
}

absl::StatusOr<std::vector<double>> CudaHarness::Calibrate(int repeats) {
  CudaDriver* const d = driver_;
  const int blocks = std::max(1, device_.multiprocessors) * kCalibrationBlocksPerSm;
  if (calibration_kernel_ == nullptr) {
    absl::StatusOr<CUmodule> module = LoadPtx(d, kCalibrationPtx);
    if (!module.ok()) return absl::InternalError(module.status().message());
    calibration_module_ = *module;
    if (absl::Status s = d->Check(
            d->cuModuleGetFunction(&calibration_kernel_, calibration_module_, "tunefarm_calibrate"),
            "cuModuleGetFunction(tunefarm_calibrate)");
        !s.ok()) {
      return s;
    }
    if (absl::Status s =
            d->Check(d->cuMemAlloc_v2(&calibration_out_, size_t{4} * blocks * kCalibrationThreads),
                     "cuMemAlloc (calibration)");
        !s.ok()) {
      return s;
    }
  }
  void* params[] = {&calibration_out_};
  auto launch = [&] {
    return d->cuLaunchKernel(calibration_kernel_, blocks, 1, 1, kCalibrationThreads, 1, 1,
                             /*shared_bytes=*/0, /*stream=*/nullptr, params, nullptr);
  };
  std::vector<double> costs;
  for (int i = 0; i < repeats; ++i) {
    double seconds = 0;
    if (CUresult r = TimeLaunches(launch, 1, &seconds); r != CUDA_SUCCESS) {
      return absl::InternalError(Failed("calibration kernel", r).message());
    }
    costs.push_back(seconds);
  }
  return costs;
}

}  // namespace tunefarm
