#include "rpc_server/device_spec.h"

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

TEST(DeviceSpec, Parse_CpuAndCuda_RoundTrip) {
  for (const char* text : {"cpu", "cuda:0", "cuda:7", "cuda:12"}) {
    absl::StatusOr<DeviceSpec> spec = ParseDeviceSpec(text);
    ASSERT_TRUE(spec.ok()) << text << ": " << spec.status();
    EXPECT_EQ(spec->ToString(), text);
  }
  EXPECT_FALSE(ParseDeviceSpec("cpu")->is_cuda());
  EXPECT_EQ(ParseDeviceSpec("cuda:3")->ordinal, 3);
}

TEST(DeviceSpec, Parse_BadText_InvalidArgument) {
  for (const char* text : {"", "bogus", "gpu", "cuda", "cuda:", "cuda:-1", "cuda:x", "cuda:1x",
                           "cuda: 1", "CPU", "cuda:99999999999"}) {
    absl::StatusOr<DeviceSpec> spec = ParseDeviceSpec(text);
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
  EXPECT_NE(ParseDeviceSpec("bogus").status().message().find("'cpu' or 'cuda:N'"),
            std::string::npos);
}

}  // namespace
}  // namespace tunefarm
