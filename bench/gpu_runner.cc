#include "bench/gpu_runner.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"

namespace tunefarm::bench {

absl::StatusOr<std::unique_ptr<GpuRunner>> GpuRunner::Create(int ordinal) {
  auto driver = CudaDriver::Load();
  if (!driver.ok()) return driver.status();
  auto info = (*driver)->DeviceInfo(ordinal);
  if (!info.ok()) {
    return absl::UnavailableError(
        absl::StrCat("no CUDA device: device ", ordinal, ": ", info.status().message()));
  }
  // The primary context is the one the CUDA runtime (and so cuBLAS) uses; its entry points
  // come from the library the driver was loaded from.
  const char* path = std::getenv("TUNEFARM_LIBCUDA");
  void* lib = dlopen(path != nullptr ? path : "libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  using RetainFn = CUresult (*)(CUcontext*, CUdevice);
  using SetCurrentFn = CUresult (*)(CUcontext);
  auto retain = reinterpret_cast<RetainFn>(lib ? dlsym(lib, "cuDevicePrimaryCtxRetain") : nullptr);
  auto set_current = reinterpret_cast<SetCurrentFn>(lib ? dlsym(lib, "cuCtxSetCurrent") : nullptr);
  if (retain == nullptr || set_current == nullptr) {
    return absl::UnavailableError("no CUDA device: the driver lacks cuDevicePrimaryCtxRetain");
  }
  CUdevice dev = 0;
  if (absl::Status s = (*driver)->Check((*driver)->cuDeviceGet(&dev, ordinal), "cuDeviceGet");
      !s.ok()) {
    return s;
  }
  CUcontext ctx = nullptr;
  if (absl::Status s = (*driver)->Check(retain(&ctx, dev), "cuDevicePrimaryCtxRetain"); !s.ok()) {
    return s;
  }
  if (absl::Status s = (*driver)->Check(set_current(ctx), "cuCtxSetCurrent"); !s.ok()) return s;
  std::unique_ptr<GpuRunner> r(new GpuRunner());
  r->driver_ = *driver;
  r->info_ = *info;
  r->device_ = dev;
  r->release_ = reinterpret_cast<ReleaseFn>(dlsym(lib, "cuDevicePrimaryCtxRelease_v2"));
  return r;
}

GpuRunner::~GpuRunner() {
  for (CUmodule m : modules_) driver_->cuModuleUnload(m);
  for (CUdeviceptr p : buffers_) driver_->cuMemFree_v2(p);
  if (release_ != nullptr) release_(device_);
}

absl::StatusOr<CUdeviceptr> GpuRunner::Alloc(size_t bytes) {
  CUdeviceptr p = 0;
  if (absl::Status s = driver_->Check(driver_->cuMemAlloc_v2(&p, bytes), "cuMemAlloc"); !s.ok()) {
    return s;
  }
  buffers_.push_back(p);
  return p;
}

absl::Status GpuRunner::Upload(CUdeviceptr dst, const void* src, size_t bytes) {
  return driver_->Check(driver_->cuMemcpyHtoD_v2(dst, src, bytes), "cuMemcpyHtoD");
}

absl::Status GpuRunner::Download(void* dst, CUdeviceptr src, size_t bytes) {
  return driver_->Check(driver_->cuMemcpyDtoH_v2(dst, src, bytes), "cuMemcpyDtoH");
}

absl::StatusOr<std::function<absl::Status()>> GpuRunner::LoadKernel(
    const std::string& artifact, std::vector<CUdeviceptr> params) {
  v1::GpuModule module;
  if (!module.ParseFromString(artifact)) return absl::DataLossError("not a GpuModule");
  CUmodule mod = nullptr;
  if (absl::Status s = driver_->Check(
          driver_->cuModuleLoadDataEx(&mod, module.ptx().c_str(), 0, nullptr, nullptr),
          "cuModuleLoadDataEx");
      !s.ok()) {
    return s;
  }
  modules_.push_back(mod);
  CUfunction fn = nullptr;
  if (absl::Status s = driver_->Check(
          driver_->cuModuleGetFunction(&fn, mod, module.entry().c_str()), "cuModuleGetFunction");
      !s.ok()) {
    return s;
  }
  auto values = std::make_shared<std::vector<CUdeviceptr>>(std::move(params));
  CudaDriver* d = driver_;
  return [d, fn, module, values]() -> absl::Status {
    std::vector<void*> args;
    for (CUdeviceptr& p : *values) args.push_back(&p);
    return d->Check(d->cuLaunchKernel(fn, module.grid().x(), module.grid().y(), module.grid().z(),
                                      module.block().x(), module.block().y(), module.block().z(), 0,
                                      nullptr, args.data(), nullptr),
                    "cuLaunchKernel");
  };
}

absl::StatusOr<double> GpuRunner::Time(const std::function<absl::Status()>& launch, int repeats,
                                       double min_repeat_ms) {
  CUevent start = nullptr, stop = nullptr;
  if (absl::Status s = driver_->Check(driver_->cuEventCreate(&start, CU_EVENT_DEFAULT), "event");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = driver_->Check(driver_->cuEventCreate(&stop, CU_EVENT_DEFAULT), "event");
      !s.ok()) {
    driver_->cuEventDestroy_v2(start);
    return s;
  }
  // The events are destroyed on every path out.
  struct Events {
    CudaDriver* d;
    CUevent a, b;
    ~Events() {
      d->cuEventDestroy_v2(a);
      d->cuEventDestroy_v2(b);
    }
  } events{driver_, start, stop};
  auto run = [&](int number) -> absl::StatusOr<double> {
    if (absl::Status s = driver_->Check(driver_->cuEventRecord(start, nullptr), "record");
        !s.ok()) {
      return s;
    }
    for (int i = 0; i < number; ++i) {
      if (absl::Status s = launch(); !s.ok()) return s;
    }
    driver_->cuEventRecord(stop, nullptr);
    if (absl::Status s = driver_->Check(driver_->cuEventSynchronize(stop), "sync"); !s.ok()) {
      return s;
    }
    float ms = 0;
    driver_->cuEventElapsedTime(&ms, start, stop);
    return static_cast<double>(ms);
  };
  auto warm = run(1);  // Warm-up (module load, clocks).
  if (!warm.ok()) return warm.status();
  int number = 1;
  for (;;) {
    auto ms = run(number);
    if (!ms.ok()) return ms.status();
    if (*ms >= min_repeat_ms || number >= (1 << 20)) break;
    number = std::max(number * 2, static_cast<int>(number * min_repeat_ms / std::max(*ms, 1e-3)));
  }
  std::vector<double> per_launch;
  for (int r = 0; r < repeats; ++r) {
    auto ms = run(number);
    if (!ms.ok()) return ms.status();
    per_launch.push_back(*ms * 1e-3 / number);
  }
  return Median(per_launch);
}

}  // namespace tunefarm::bench
