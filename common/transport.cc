#include "common/transport.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/random_token.h"

namespace tunefarm {
namespace {

constexpr char kAuthMetadata[] = "authorization";
constexpr char kBearer[] = "Bearer ";
// Trailing metadata of a back-pressure error.
constexpr char kBackPressureMetadata[] = "tunefarm-back-pressure";

absl::StatusOr<std::string> ReadPem(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read PEM file '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().empty()) return absl::InvalidArgumentError(absl::StrCat("empty PEM '", path, "'"));
  return ss.str();
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const TlsOptions& tls) {
  if (tls.client_cert_file.empty() != tls.client_key_file.empty()) {
    return absl::InvalidArgumentError("a client certificate needs both its file and its key");
  }
  if (tls.ca_file.empty()) {
    if (!tls.client_cert_file.empty()) {
      return absl::InvalidArgumentError(
          "a client certificate is only sent over TLS: give the tracker's CA too (--tls_ca)");
    }
    return grpc::InsecureChannelCredentials();
  }
  absl::StatusOr<std::string> ca = ReadPem(tls.ca_file);
  if (!ca.ok()) return ca.status();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = *ca;
  if (!tls.client_cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadPem(tls.client_cert_file);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(tls.client_key_file);
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  return grpc::SslCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsOptions& tls) {
  if (tls.cert_file.empty() && tls.key_file.empty()) {
    if (!tls.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "client certificates need TLS: give the server's certificate and key too");
    }
    return grpc::InsecureServerCredentials();
  }
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    return absl::InvalidArgumentError("TLS needs both a certificate and a key file");
  }
  absl::StatusOr<std::string> cert = ReadPem(tls.cert_file);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(tls.key_file);
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (!tls.client_ca_file.empty()) {
    absl::StatusOr<std::string> client_ca = ReadPem(tls.client_ca_file);
    if (!client_ca.ok()) return client_ca.status();
    options.pem_root_certs = *client_ca;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const TlsOptions& tls,
                                                           int max_message_bytes) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> creds = MakeChannelCredentials(tls);
  if (!creds.ok()) return creds.status();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(max_message_bytes);
  args.SetMaxSendMessageSize(max_message_bytes);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // Reconnect quickly after a tracker restart instead of backing off for minutes.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  if (!tls.server_name_override.empty()) {
    args.SetSslTargetNameOverride(tls.server_name_override);
  }
  return grpc::CreateCustomChannel(address, *creds, args);
}

void ConfigureServerBuilder(grpc::ServerBuilder& builder, int max_message_bytes) {
  // grpc.health.v1 on every server (load balancers and Kubernetes probes ask it); it needs no
  // token, and says only whether the server serves. The switch is process-wide and read when the
  // server is built.
  grpc::EnableDefaultHealthCheckService(true);
  builder.SetMaxReceiveMessageSize(max_message_bytes);
  builder.SetMaxSendMessageSize(max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 3 * kKeepaliveTimeMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             kKeepaliveTimeMs / 2);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
}

void MarkBackPressure(grpc::ServerContext* context) {
  context->AddTrailingMetadata(kBackPressureMetadata, "queue-full");
}

absl::Status FromGrpcCall(const grpc::Status& status, const grpc::ClientContext& context) {
  absl::Status s = FromGrpcStatus(status);
  if (absl::IsResourceExhausted(s) &&
      context.GetServerTrailingMetadata().count(kBackPressureMetadata) > 0) {
    s.SetPayload(kBackPressurePayload, absl::Cord("1"));
  }
  return s;
}

void AttachToken(grpc::ClientContext* context, absl::string_view token) {
  if (!token.empty()) context->AddMetadata(kAuthMetadata, absl::StrCat(kBearer, token));
}

grpc::Status CheckToken(const grpc::ServerContext& context,
                        std::initializer_list<absl::string_view> accepted) {
  bool any = false;
  for (absl::string_view token : accepted) any |= !token.empty();
  if (!any) return grpc::Status::OK;
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kAuthMetadata);
  std::string presented;
  if (it != metadata.end()) presented.assign(it->second.data(), it->second.size());
  for (absl::string_view token : accepted) {
    if (!token.empty() && SecretEquals(presented, absl::StrCat(kBearer, token))) {
      return grpc::Status::OK;
    }
  }
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      "missing or invalid token for this call (pass --token or set "
                      "TUNEFARM_TOKEN; workers and clients may have separate tokens)");
}

}  // namespace tunefarm
