// `tunefarm_sandbox`: the child process that loads and runs untrusted kernels for a worker.
//
// Usage: tunefarm_sandbox MEMORY_LIMIT_MB [DEVICE [emulated]]
// DEVICE is "cpu" (the default: kernels are host shared libraries, harness.h) or "cuda:N"
// (kernels are GpuModule artifacts run on CUDA device N, cuda_harness.h; the child creates
// its context once, at start). "emulated": the worker detected qemu-user (SandboxOptions::
// emulated); only with it, and only when the child detects emulation too, does a CPU child
// go on without the seccomp filter that qemu-user refuses.
// Reads SandboxRequest frames on kSandboxChannelFd and answers SandboxResponse frames there
// until EOF; fds 0-2 are /dev/null and kSandboxStatusFd is the status page (sandbox_protocol.h).
// Before anything else it confines itself (sandbox_confinement.h); per request it caps its CPU
// time (RLIMIT_CPU, a backstop behind the parent's wall clock). A crash is reported by the
// parent from the exit status and the status page: failed allocations are recorded there as
// they happen (allocation_hook.h), so a crash, a timeout or a CPU-limit kill that follows an
// exhausted memory limit is still reported as OUT_OF_MEMORY.
//
// With a CUDA device there is no address-space limit: the driver reserves address ranges far
// larger than any sensible limit (unified addressing maps the device memory and more into the
// process), so RLIMIT_AS would make context creation fail. Host tensors are still bounded
// (half of MEMORY_LIMIT_MB per request), and device allocations are bounded by the same
// figure. After a kernel fault that leaves the context unusable, the child answers the
// request with `exiting` set and exits; the parent starts a fresh one.
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "proto/sandbox.pb.h"
#include "rpc_server/allocation_hook.h"
#include "rpc_server/cuda_harness.h"
#include "rpc_server/device_spec.h"
#include "rpc_server/emulation.h"
#include "rpc_server/framing.h"
#include "rpc_server/harness.h"
#include "rpc_server/sandbox_confinement.h"
#include "rpc_server/sandbox_protocol.h"

namespace tunefarm {
namespace {

// operator new found no memory (the failed malloc is already on the status page). Returning
// would make it retry forever.
void OnNewFailure() { _exit(kSandboxExitOutOfMemory); }

// The status page shared with the parent, or a private one when the parent passed none (the
// child run by hand).
SandboxStatusPage* MapStatusPage() {
  void* p = mmap(nullptr, sizeof(SandboxStatusPage), PROT_READ | PROT_WRITE, MAP_SHARED,
                 kSandboxStatusFd, 0);
  if (p == MAP_FAILED) return new SandboxStatusPage{};
  return static_cast<SandboxStatusPage*>(p);
}

// Confines the process, or ends it: kernels never run unconfined.
void ConfineOrExit(const ConfinementOptions& options, SandboxStatusPage* page) {
  if (getppid() == 1) _exit(kSandboxExitOrphaned);
  if (absl::Status s = ConfineSandbox(options, page); !s.ok()) {
    std::fprintf(stderr, "tunefarm_sandbox: %s\n", std::string(s.message()).c_str());
    _exit(kSandboxExitConfinementFailed);
  }
  static char alt_stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof(alt_stack);
  sigaltstack(&ss, nullptr);
  std::set_new_handler(OnNewFailure);
}

// Limits this process's CPU time to what it used so far plus `seconds` on every core: the
// parent's wall clock is the timeout, this only backs it up, so it must never fire first (not
// even for a kernel whose threads burn all cores).
void LimitCpuFromNow(int64_t seconds) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  rlim_t used = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1;
  const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  rlimit cpu{used + static_cast<rlim_t>(seconds * cores + 5), RLIM_INFINITY};
  setrlimit(RLIMIT_CPU, &cpu);
}

// Tensor bytes of one request: half the address-space limit (the rest is for the kernel).
int64_t MaxTensorBytes(int64_t memory_limit_mb) {
  return memory_limit_mb > 0 ? (memory_limit_mb << 20) / 2 : int64_t{1} << 32;
}

// Answers requests until EOF, with `measure` and `calibrate` doing the work. `exiting`, when
// it turns true after a request, makes this the child's last answer.
int ServeLoop(const std::function<v1::MeasureResult(const v1::SandboxMeasure&)>& measure,
              const std::function<v1::MeasureResult(int repeats)>& calibrate,
              const std::function<bool()>& exiting) {
  while (true) {
    v1::SandboxRequest request;
    absl::Status status = ReadFrame(kSandboxChannelFd, &request, absl::InfiniteFuture());
    if (!status.ok()) return status.code() == absl::StatusCode::kUnavailable ? 0 : 3;
    v1::SandboxResponse response;
    if (request.has_measure()) {
      int timeout_ms = request.measure().request().timeout_ms();
      LimitCpuFromNow(timeout_ms > 0 ? (timeout_ms + 999) / 1000 : 10);
      *response.mutable_result() = measure(request.measure());
    } else {
      *response.mutable_result() = calibrate(request.calibrate_repeats());
    }
    response.set_exiting(exiting());
    if (!WriteFrame(kSandboxChannelFd, response).ok() || response.exiting()) return 0;
  }
}

int ServeCpu(int64_t memory_limit_mb, bool worker_emulated, SandboxStatusPage* page) {
  ConfinementOptions confinement{memory_limit_mb};
  // Under qemu-user no seccomp filter can be installed; the rest of the confinement applies,
  // and the parent reports the difference (kConfinedEmulated). Both the worker and this child
  // must see emulation: on real hardware a failed filter always ends the child.
  confinement.emulated = worker_emulated && DetectHostEmulation().emulated;
  ConfineOrExit(confinement, page);
  Harness harness(MaxTensorBytes(memory_limit_mb));
  return ServeLoop([&](const v1::SandboxMeasure& m) { return harness.Measure(m); },
                   [&](int repeats) {
                     v1::MeasureResult result;
                     for (double c : harness.Calibrate(repeats)) result.add_costs_s(c);
                     return result;
                   },
                   [] { return false; });
}

int ServeCuda(int64_t memory_limit_mb, int ordinal, SandboxStatusPage* page) {
  // No RLIMIT_AS with the CUDA driver (see the file comment); it needs its device files
  // opened read-write, its JIT cache and its helpers' AF_UNIX sockets.
  ConfineOrExit(ConfinementOptions{/*memory_limit_mb=*/0, /*isolate_network=*/false,
                                   /*forbid_file_writes=*/false, /*allow_unix_sockets=*/true,
                                   /*syscall_allowlist=*/false},
                page);
  absl::StatusOr<std::unique_ptr<CudaHarness>> harness =
      CudaHarness::Create(ordinal, MaxTensorBytes(memory_limit_mb));
  // Without a context every request gets the reason; the parent's CudaBackend checked the
  // device before starting us, so this is rare (device busy in exclusive mode, driver reset).
  auto unavailable = [&] {
    v1::MeasureResult result;
    result.set_error(v1::RUNTIME_ERROR);
    result.set_message(absl::StrCat("cuda:", ordinal, ": ", harness.status().message()));
    return result;
  };
  return ServeLoop(
      [&](const v1::SandboxMeasure& m) {
        return harness.ok() ? (*harness)->Measure(m) : unavailable();
      },
      [&](int repeats) {
        if (!harness.ok()) return unavailable();
        v1::MeasureResult result;
        absl::StatusOr<std::vector<double>> costs = (*harness)->Calibrate(repeats);
        if (!costs.ok()) {
          result.set_error(v1::RUNTIME_ERROR);
          result.set_message(std::string(costs.status().message()));
        }
        for (double c : costs.value_or(std::vector<double>())) result.add_costs_s(c);
        return result;
      },
      // Without a context (or after a sticky error) this child is useless: the parent starts a
      // fresh one for the next request instead of failing every later candidate here.
      [&] { return !harness.ok() || (*harness)->context_lost(); });
}

}  // namespace
}  // namespace tunefarm

int main(int argc, char** argv) {
  int64_t memory_limit_mb = argc > 1 ? std::strtoll(argv[1], nullptr, 10) : 0;
  absl::StatusOr<tunefarm::DeviceSpec> device =
      tunefarm::ParseDeviceSpec(argc > 2 ? argv[2] : "cpu");
  if (!device.ok()) {
    std::fprintf(stderr, "tunefarm_sandbox: %s\n", std::string(device.status().message()).c_str());
    return 2;
  }
  tunefarm::SandboxStatusPage* page = tunefarm::MapStatusPage();
  tunefarm::RecordAllocationFailuresOn(page);
  // Kernels with parallel loops (and the host reference libraries of GPU requests, linked
  // with -lgomp) run on libgomp's thread pool. Pin the library for the life of the sandbox:
  // if dlclose of the last artifact that needs it unloaded it, the pool's idle threads would
  // be left running unmapped code and crash the next measurement. Absent libgomp is fine
  // (such artifacts then fail to load, which is reported as LOAD_ERROR).
  dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  if (device->is_cuda()) return tunefarm::ServeCuda(memory_limit_mb, device->ordinal, page);
  const bool worker_emulated = argc > 3 && std::string(argv[3]) == "emulated";
  return tunefarm::ServeCpu(memory_limit_mb, worker_emulated, page);
}
