// Links protobuf and the generated code: a message survives a wire round trip.
#include <string>

#include "gtest/gtest.h"
#include "proto/common.pb.h"

namespace tunefarm {
namespace {

TEST(ProtoSmoke, DeviceDescription_RoundTrip_Equal) {
  v1::DeviceDescription in;
  in.set_key("cpu-znver4");
  in.set_target("llvm -mcpu=znver4");
  in.set_cores(2);
  (*in.mutable_labels())["rack"] = "a1";

  std::string wire;
  ASSERT_TRUE(in.SerializeToString(&wire));
  v1::DeviceDescription out;
  ASSERT_TRUE(out.ParseFromString(wire));
  EXPECT_EQ(out.key(), "cpu-znver4");
  EXPECT_EQ(out.cores(), 2);
  EXPECT_EQ(out.labels().at("rack"), "a1");
}

TEST(ProtoSmoke, Garbage_ParseFails) {
  v1::DeviceDescription out;
  EXPECT_FALSE(out.ParseFromString(std::string("\xff\xff\xff\xff", 4)));
}

}  // namespace
}  // namespace tunefarm
