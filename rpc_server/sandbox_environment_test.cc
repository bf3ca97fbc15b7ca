#include "rpc_server/sandbox_environment.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

using ::testing::ElementsAre;

TEST(SandboxEnvironment, SecretsDropped_RuntimeSettingsKept) {
  char* env[] = {const_cast<char*>("TUNEFARM_TOKEN=s3cret"),
                 const_cast<char*>("PATH=/usr/bin"),
                 const_cast<char*>("AWS_SECRET_ACCESS_KEY=x"),
                 const_cast<char*>("OMP_NUM_THREADS=2"),
                 const_cast<char*>("GOMP_SPINCOUNT=0"),
                 const_cast<char*>("CUDA_VISIBLE_DEVICES=0"),
                 const_cast<char*>("TUNEFARM_LIBCUDA=/x/libcuda.so"),
                 const_cast<char*>("TUNEFARM_TOKEN_FILE=/etc/tunefarm/token"),
                 const_cast<char*>("PATHOLOGICAL=1"),
                 const_cast<char*>("no_equals_sign"),
                 nullptr};
  EXPECT_THAT(SandboxEnvironment(env),
              ElementsAre("PATH=/usr/bin", "OMP_NUM_THREADS=2", "GOMP_SPINCOUNT=0",
                          "CUDA_VISIBLE_DEVICES=0", "TUNEFARM_LIBCUDA=/x/libcuda.so"));
}

TEST(SandboxEnvironment, KernelThreads_OverrideTheWorkersSetting) {
  char* env[] = {const_cast<char*>("OMP_NUM_THREADS=7"), const_cast<char*>("PATH=/usr/bin"),
                 nullptr};
  EXPECT_THAT(SandboxEnvironment(env, 2), ElementsAre("PATH=/usr/bin", "OMP_NUM_THREADS=2"));
  EXPECT_THAT(SandboxEnvironment(env, 0), ElementsAre("OMP_NUM_THREADS=7", "PATH=/usr/bin"));
  char* none[] = {nullptr};
  EXPECT_THAT(SandboxEnvironment(none, 3), ElementsAre("OMP_NUM_THREADS=3"));
}

TEST(SandboxEnvironment, EmptyOrNull_Empty) {
  char* env[] = {nullptr};
  EXPECT_TRUE(SandboxEnvironment(env).empty());
  EXPECT_TRUE(SandboxEnvironment(nullptr).empty());
}

}  // namespace
}  // namespace tunefarm
