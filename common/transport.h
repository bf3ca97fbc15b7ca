// gRPC plumbing shared by the tracker's server shell, its client library and the device
// worker: status conversion (one helper each way), credentials (token, optional TLS) and
// channel construction. Nothing outside the thin gRPC shells includes this header.
#ifndef TUNEFARM_COMMON_TRANSPORT_H_
#define TUNEFARM_COMMON_TRANSPORT_H_

#include <grpcpp/grpcpp.h>

#include <initializer_list>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/tls_options.h"

namespace tunefarm {

// Default bound on one gRPC message; larger requests fail with ResourceExhausted.
inline constexpr int kDefaultMaxMessageBytes = 64 << 20;

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

// Credentials for a client: TLS when `tls.ca_file` is set (server verified against the CA),
// insecure otherwise. Errors: NotFound/InvalidArgument when a PEM file cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const TlsOptions& tls);

// Credentials for a server: TLS when `tls.cert_file` and `tls.key_file` are set.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsOptions& tls);

// Keepalive of every channel and server: a client pings an idle connection this often and
// drops it when no answer comes within the timeout, so a silently broken link (a partition, a
// host gone) fails calls in seconds instead of hanging until their deadlines.
inline constexpr int kKeepaliveTimeMs = 10000;
inline constexpr int kKeepaliveTimeoutMs = 5000;

// Bounded message sizes and keepalive for a server: it pings idle clients, accepts their
// pings down to half of kKeepaliveTimeMs apart, even between calls. The server also answers the
// standard health service (grpc.health.v1.Health, no token needed): SERVING until it drains.
void ConfigureServerBuilder(grpc::ServerBuilder& builder, int max_message_bytes);

// Marks a server's error as back-pressure (the tracker's queue is full: fetch results, then
// retry), as opposed to a ResourceExhausted that gRPC itself raises for an oversized message.
void MarkBackPressure(grpc::ServerContext* context);

// The absl::Status payload of a back-pressure error on the client side.
inline constexpr char kBackPressurePayload[] = "type.tunefarm.dev/back-pressure";

// FromGrpcStatus for a finished client call; a status the server marked as back-pressure
// carries the kBackPressurePayload (see IsBackPressure in tracker_client.h).
absl::Status FromGrpcCall(const grpc::Status& status, const grpc::ClientContext& context);

// A channel to `address` with bounded message sizes and keepalive.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const TlsOptions& tls,
                                                           int max_message_bytes);

// Attaches the shared token to a call (no-op when empty).
void AttachToken(grpc::ClientContext* context, absl::string_view token);

// Checks the token of an incoming call in constant time against each of `accepted` that is
// set. OK when none is set (authentication off for this call).
grpc::Status CheckToken(const grpc::ServerContext& context,
                        std::initializer_list<absl::string_view> accepted);

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_TRANSPORT_H_
