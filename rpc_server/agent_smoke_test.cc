// Links what the device agent needs: libdl to load kernels and a gRPC client stub.
#include <dlfcn.h>
#include <grpcpp/grpcpp.h>

#include "gtest/gtest.h"
#include "proto/tracker.grpc.pb.h"

namespace tunefarm {
namespace {

TEST(AgentSmoke, Dlopen_LibmCos_Resolves) {
  void* lib = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  using CosFn = double (*)(double);
  auto cos_fn = reinterpret_cast<CosFn>(dlsym(lib, "cos"));
  ASSERT_NE(cos_fn, nullptr);
  EXPECT_DOUBLE_EQ(cos_fn(0.0), 1.0);
  dlclose(lib);
}

TEST(AgentSmoke, UnreachableTracker_CallFails_Unavailable) {
  // Port 1 on loopback is never a tracker; the call must fail fast, not hang.
  auto stub =
      v1::Tracker::NewStub(grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::FarmSummary summary;
  grpc::Status status = stub->Summary(&ctx, v1::SummaryRequest(), &summary);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace tunefarm
