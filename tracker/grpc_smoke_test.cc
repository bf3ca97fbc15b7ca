// Links gRPC 1.51: a Tracker service on 127.0.0.1 with an OS-chosen port answers Summary.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "proto/tracker.grpc.pb.h"

namespace tunefarm {
namespace {

class OneDeviceTracker final : public v1::Tracker::Service {
  grpc::Status Summary(grpc::ServerContext*, const v1::SummaryRequest*,
                       v1::FarmSummary* out) override {
    out->add_devices()->set_key("cpu-test");
    return grpc::Status::OK;
  }
};

TEST(GrpcSmoke, Summary_OverLoopback_ReturnsDevice) {
  OneDeviceTracker service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_GT(port, 0);

  auto channel =
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  auto stub = v1::Tracker::NewStub(channel);
  grpc::ClientContext ctx;
  v1::FarmSummary summary;
  grpc::Status status = stub->Summary(&ctx, v1::SummaryRequest(), &summary);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(summary.devices_size(), 1);
  EXPECT_EQ(summary.devices(0).key(), "cpu-test");
  server->Shutdown();
}

}  // namespace
}  // namespace tunefarm
