// `tunefarm health ADDRESS`: asks a tracker or job service the standard gRPC health question
// (grpc.health.v1.Health/Check; no token needed) and exits 0 only when it is SERVING. For
// scripts, load balancers and Kubernetes exec probes where gRPC probes are not available.
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/farm_flags.h"
#include "cli/subcommand.h"
#include "common/transport.h"
#include "proto/health.grpc.pb.h"

namespace tunefarm::cli {

int RunHealth(const std::vector<std::string>& positional) {
  if (positional.size() != 1) {
    absl::FPrintF(stderr, "tunefarm health: expected one ADDRESS (host:port)\n");
    return kExitUsage;
  }
  auto channel = MakeChannel(positional[0], FarmTls(), 1 << 20);
  if (!channel.ok()) {
    absl::FPrintF(stderr, "tunefarm health: %s\n", channel.status().ToString());
    return kExitUsage;
  }
  auto stub = grpc::health::v1::Health::NewStub(*channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = stub->Check(&context, request, &response);
  if (!status.ok()) {
    absl::FPrintF(stderr, "tunefarm health: %s: %s\n", positional[0],
                  FromGrpcStatus(status).ToString());
    return kExitFailure;
  }
  absl::PrintF("%s %s\n", positional[0],
               grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status()));
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING ? kExitOk
                                                                             : kExitFailure;
}

}  // namespace tunefarm::cli
