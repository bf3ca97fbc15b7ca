#include "rpc_server/framing.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace tunefarm {
namespace {

absl::Status WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    // MSG_NOSIGNAL: a dead peer is an error to report, not a SIGPIPE that kills the worker.
    ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("write failed: ", std::strerror(errno)));
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status ReadAll(int fd, char* data, size_t size, absl::Time deadline) {
  while (size > 0) {
    int timeout_ms = -1;
    if (deadline != absl::InfiniteFuture()) {
      absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) return absl::DeadlineExceededError("read timed out");
      timeout_ms = static_cast<int>(absl::ToInt64Milliseconds(left)) + 1;
    }
    pollfd p{fd, POLLIN, 0};
    int r = poll(&p, 1, timeout_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("poll failed: ", std::strerror(errno)));
    }
    if (r == 0) continue;  // re-check the deadline
    ssize_t n = read(fd, data, size);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return absl::UnavailableError(absl::StrCat("read failed: ", std::strerror(errno)));
    }
    if (n == 0) return absl::UnavailableError("peer closed the channel");
    data += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFrame(int fd, const google::protobuf::MessageLite& message) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) return absl::InternalError("cannot serialize frame");
  if (bytes.size() > kMaxFrameBytes) return absl::InvalidArgumentError("frame too large");
  uint32_t size = static_cast<uint32_t>(bytes.size());
  char header[4] = {static_cast<char>(size & 0xff), static_cast<char>((size >> 8) & 0xff),
                    static_cast<char>((size >> 16) & 0xff), static_cast<char>(size >> 24)};
  if (absl::Status s = WriteAll(fd, header, 4); !s.ok()) return s;
  return WriteAll(fd, bytes.data(), bytes.size());
}

absl::Status ReadFrame(int fd, google::protobuf::MessageLite* message, absl::Time deadline) {
  unsigned char header[4];
  if (absl::Status s = ReadAll(fd, reinterpret_cast<char*>(header), 4, deadline); !s.ok()) {
    return s;
  }
  uint32_t size =
      header[0] | (header[1] << 8) | (header[2] << 16) | (static_cast<uint32_t>(header[3]) << 24);
  if (size > kMaxFrameBytes) return absl::DataLossError("frame length out of range");
  // The buffer grows with the bytes that actually arrive: a length prefix alone (written by a
  // child the worker does not trust) cannot make the worker allocate and clear 256 MiB.
  constexpr size_t kChunk = 1 << 20;
  std::string bytes;
  for (size_t done = 0; done < size;) {
    const size_t chunk = std::min<size_t>(size - done, kChunk);
    bytes.resize(done + chunk);
    if (absl::Status s = ReadAll(fd, bytes.data() + done, chunk, deadline); !s.ok()) return s;
    done += chunk;
  }
  if (!message->ParseFromString(bytes)) return absl::DataLossError("cannot parse frame");
  return absl::OkStatus();
}

}  // namespace tunefarm
