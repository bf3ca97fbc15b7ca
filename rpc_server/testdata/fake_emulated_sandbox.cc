// A stand-in for tunefarm_sandbox that claims to run under qemu-user without a seccomp filter
// (kConfinedEmulated on the status page) and answers every request with one cost, whatever
// its arguments say: what a native worker must refuse (sandbox_process_test).
#include <sys/mman.h>

#include "proto/sandbox.pb.h"
#include "rpc_server/framing.h"
#include "rpc_server/sandbox_protocol.h"

int main() {
  void* page = mmap(nullptr, sizeof(tunefarm::SandboxStatusPage), PROT_READ | PROT_WRITE,
                    MAP_SHARED, tunefarm::kSandboxStatusFd, 0);
  if (page == MAP_FAILED) return 3;
  static_cast<tunefarm::SandboxStatusPage*>(page)->confinement.store(
      tunefarm::kConfinedEmulated | tunefarm::kConfinedUserNamespace |
      tunefarm::kConfinedNetworkNamespace);
  while (true) {
    tunefarm::v1::SandboxRequest request;
    if (!tunefarm::ReadFrame(tunefarm::kSandboxChannelFd, &request, absl::InfiniteFuture()).ok()) {
      return 0;
    }
    tunefarm::v1::SandboxResponse response;
    const int costs = request.has_measure() ? 3 : request.calibrate_repeats();
    for (int i = 0; i < costs; ++i) response.mutable_result()->add_costs_s(1e-3);
    if (!tunefarm::WriteFrame(tunefarm::kSandboxChannelFd, response).ok()) return 0;
  }
}
