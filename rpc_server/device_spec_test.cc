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

TEST(DeviceSpec, ParseList_CpuOneGpuSeveralAll) {
  int asked = 0;
  auto count = [&]() -> absl::StatusOr<int> {
    ++asked;
    return 3;
  };
  EXPECT_EQ(ParseDeviceList("cpu", count)->size(), 1u);
  EXPECT_FALSE((*ParseDeviceList("cpu", count))[0].is_cuda());
  auto some = ParseDeviceList("cuda:2,0", count);
  ASSERT_TRUE(some.ok()) << some.status();
  ASSERT_EQ(some->size(), 2u);
  EXPECT_EQ((*some)[0].ordinal, 2);
  EXPECT_EQ((*some)[1].ordinal, 0);
  EXPECT_EQ(asked, 0);  // The driver is asked only for cuda:all.
  auto all = ParseDeviceList("cuda:all", count);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[2].ordinal, 2);
  EXPECT_EQ(asked, 1);
  for (const char* bad : {"cuda:0,0", "cuda:1,", "cuda:,1", "cuda:1;2", "gpu:all", "bogus"}) {
    EXPECT_EQ(ParseDeviceList(bad, count).status().code(), absl::StatusCode::kInvalidArgument)
        << bad;
  }
  auto no_driver = ParseDeviceList(
      "cuda:all", []() -> absl::StatusOr<int> { return absl::UnavailableError("no CUDA device"); });
  EXPECT_EQ(no_driver.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace tunefarm
