// Fuzz target: the worker side of the sandbox channel. A kernel's child process controls
// every byte on that pipe; the worker reads frames from it until an error. Any bytes give
// frames or a status (DataLoss, Unavailable), never a crash or a hang.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/time/clock.h"
#include "proto/sandbox.pb.h"
#include "rpc_server/framing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 60000) return 0;  // stays within one pipe buffer, so the write cannot block
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  size_t written = 0;
  while (written < size) {
    ssize_t n = write(fds[1], data + written, size - written);
    if (n <= 0) std::abort();
    written += static_cast<size_t>(n);
  }
  close(fds[1]);  // then EOF, as when the child dies
  for (int frames = 0; frames < 1000; ++frames) {
    tunefarm::v1::SandboxResponse response;
    absl::Status s = tunefarm::ReadFrame(fds[0], &response, absl::Now() + absl::Seconds(1));
    if (!s.ok()) {
      if (absl::IsDeadlineExceeded(s)) std::abort();  // EOF must end the read, not the clock
      break;
    }
  }
  close(fds[0]);
  return 0;
}
