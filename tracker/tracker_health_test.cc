// The tracker answers the standard gRPC health service: without a token, SERVING until it
// drains, then NOT_SERVING (so load balancers and readiness probes stop sending clients).
#include <grpcpp/grpcpp.h>

#include "gtest/gtest.h"
#include "proto/health.grpc.pb.h"
#include "tracker/tracker_server.h"

namespace tunefarm {
namespace {

using grpc::health::v1::HealthCheckResponse;

HealthCheckResponse::ServingStatus Check(const std::string& address) {
  auto stub = grpc::health::v1::Health::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  HealthCheckResponse response;
  grpc::Status status = stub->Check(&context, grpc::health::v1::HealthCheckRequest(), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response.status();
}

TEST(TrackerHealthTest, Check_ServingWithoutToken_NotServingOnceDraining) {
  TrackerServerOptions options;
  options.token = "farm-secret";  // the tracker's own calls need it; health checks do not
  auto server = TrackerServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ(Check((*server)->address()), HealthCheckResponse::SERVING);
  EXPECT_TRUE((*server)->Drain(absl::ZeroDuration()));  // nothing queued: drained at once
  EXPECT_EQ(Check((*server)->address()), HealthCheckResponse::NOT_SERVING);
}

}  // namespace
}  // namespace tunefarm
