// Length-delimited protobuf messages over a file descriptor (the worker <-> sandbox channel):
// a 4-byte little-endian length, then the serialized message.
#ifndef TUNEFARM_RPC_SERVER_FRAMING_H_
#define TUNEFARM_RPC_SERVER_FRAMING_H_

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "google/protobuf/message_lite.h"

namespace tunefarm {

// Largest frame accepted; a longer length prefix is treated as a corrupt stream.
inline constexpr uint32_t kMaxFrameBytes = 256u << 20;

// Writes one frame. Errors: Unavailable (peer closed), Internal (serialization).
absl::Status WriteFrame(int fd, const google::protobuf::MessageLite& message);

// Reads one frame, waiting until `deadline` (absl::InfiniteFuture() to block).
// Errors: DeadlineExceeded, Unavailable (peer closed: EOF), DataLoss (corrupt frame).
absl::Status ReadFrame(int fd, google::protobuf::MessageLite* message, absl::Time deadline);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_FRAMING_H_
