// The PTX embedded in the worker (calibration kernel) and used by the GPU tests assembles with
// ptxas for current GPUs. Runs where the CUDA toolkit is installed (ptxas needs no GPU);
// skips, saying why, elsewhere.
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/tests/ptxas.h"
#include "gtest/gtest.h"
#include "rpc_server/cuda_harness.h"

namespace tunefarm {
namespace {

TEST(Ptx, EmbeddedAndTestKernels_AssembleWithPtxas) {
  auto ptxas = testing::FindPtxas();
  if (!ptxas.ok()) GTEST_SKIP() << ptxas.status().message();
  std::ifstream in(std::string(std::getenv("TEST_SRCDIR")) +
                   "/tunefarm/rpc_server/testdata/vadd.ptx");
  std::stringstream test_ptx;
  test_ptx << in.rdbuf();
  ASSERT_FALSE(test_ptx.str().empty());
  const std::pair<std::string, std::string> sources[] = {
      {"calibrate.ptx", std::string(CalibrationPtx())}, {"vadd.ptx", test_ptx.str()}};
  for (const auto& [name, ptx] : sources) {
    for (const char* arch : {"sm_75", "sm_80", "sm_90"}) {
      absl::Status s = testing::AssemblePtx(*ptxas, ptx, arch);
      EXPECT_TRUE(s.ok()) << name << ": " << s;
    }
  }
}

}  // namespace
}  // namespace tunefarm
