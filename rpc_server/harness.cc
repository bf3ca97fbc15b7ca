#include "rpc_server/harness.h"

#include <chrono>
#include <memory>

#include "rpc_server/cache_flush.h"
#include "rpc_server/packed_args.h"
#include "rpc_server/tensors.h"
#include "rpc_server/timing.h"

namespace tunefarm {
namespace {

// Elements of the calibration kernel's buffer (64 KiB of floats: stays in L2).
constexpr int kCalibrationElements = 16384;
constexpr int kCalibrationSweeps = 64;

}  // namespace

v1::MeasureResult Harness::Measure(const v1::SandboxMeasure& measure) {
  const v1::MeasureRequest& request = measure.request();
  HostArguments args;
  v1::MeasureResult error;
  if (!reference_.Prepare(measure, &args, &error)) return error;
  HostTensors& tensors = *args.tensors;

  auto lib = LoadedLibrary::Open(measure.artifact_path(), request.kernel_name(), &error);
  if (lib == nullptr) return error;
  TfKernelFn fn = lib->kernel();
  // Weights packed ahead of time: packed once, before the kernel runs, untimed.
  std::unique_ptr<PackedArguments> call =
      PackedArguments::Pack(request, tensors, *lib, max_tensor_bytes_, &error);
  if (call == nullptr) return error;

  // Warm-up run, on poisoned outputs: it is also the checked run.
  tensors.PoisonOutputs();
  if (int32_t rc = fn(call->args(), call->num_args()); rc != 0) {
    return KernelFailed("kernel", rc);
  }
  if (std::string mismatch = CheckOutputs(request, args); !mismatch.empty()) {
    return MeasureError(v1::WRONG_ANSWER, mismatch);
  }

  // Cold runs (flush_cache) find every argument but the first (the layer's input) out of the
  // caches, as a layer of a network finds its weights, and the kernel's kept workspaces too
  // (an inference has run since this layer last wrote them).
  std::vector<LoadedLibrary::Workspace> workspaces;
  if (request.timing().flush_cache()) workspaces = lib->Workspaces(max_tensor_bytes_);
  TimingOutcome timing = TimeKernel([&] { return fn(call->args(), call->num_args()); },
                                    [&] {
                                      FlushArguments(call->args(), call->num_args(), 1);
                                      for (const LoadedLibrary::Workspace& w : workspaces) {
                                        FlushRange(w.block, static_cast<size_t>(w.bytes));
                                      }
                                    },
                                    request.timing());
  if (timing.kernel_rc != 0) return KernelFailed("kernel (timed run)", timing.kernel_rc);
  return TimedResult(timing, request.timing());
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
