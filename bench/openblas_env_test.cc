#include "bench/openblas_env.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tunefarm::bench {
namespace {

using ::testing::IsEmpty;

// The changes asked for, by name, in an environment made of `env` alone.
std::map<std::string, std::string> Changes(const std::map<std::string, std::string>& env,
                                           const std::string& loaded_core) {
  std::map<std::string, std::string> out;
  for (const EnvChange& c : LibraryEnvChanges(
           [&env](const char* name) -> const char* {
             auto it = env.find(name);
             return it == env.end() ? nullptr : it->second.c_str();
           },
           loaded_core)) {
    EXPECT_FALSE(c.why.empty()) << c.name;
    out[c.name] = c.value;
  }
  return out;
}

TEST(OpenBlasEnvTest, UnsetThreadTimeoutPutsOpenBlasWorkersToSleep) {
  const std::string best = BestOpenBlasCoreType();
  const std::map<std::string, std::string> env = {
      {"OPENBLAS_CORETYPE", best.empty() ? "Prescott" : best},
      {"GLIBC_TUNABLES", "glibc.malloc.hugetlb=1"}};
  const auto changes = Changes(env, best);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes.at("OPENBLAS_THREAD_TIMEOUT"), "4");
}

TEST(OpenBlasEnvTest, NothingToChangeWhereEverythingIsSet) {
  const std::string best = BestOpenBlasCoreType();
  if (best.empty()) GTEST_SKIP() << "no AVX2 or AVX-512: OpenBLAS picks its own kernels here";
  EXPECT_THAT(Changes({{"OPENBLAS_CORETYPE", best},
                       {"GLIBC_TUNABLES", "glibc.malloc.hugetlb=1"},
                       {"OPENBLAS_THREAD_TIMEOUT", "10"}},
                      best),
              IsEmpty());
}

TEST(OpenBlasEnvTest, HugePageTunableAppendedToTheOthers) {
  const auto changes = Changes({{"GLIBC_TUNABLES", "glibc.malloc.arena_max=2"}}, "unknown");
  EXPECT_EQ(changes.at("GLIBC_TUNABLES"), "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  EXPECT_EQ(Changes({}, "unknown").at("GLIBC_TUNABLES"), "glibc.malloc.hugetlb=1");
}

TEST(OpenBlasEnvTest, WeakerCoreTypeReplacedByThisCoresBest) {
  const std::string best = BestOpenBlasCoreType();
  if (best.empty()) GTEST_SKIP() << "no AVX2 or AVX-512: OpenBLAS picks its own kernels here";
  // Named in the environment (these machines set Haswell), or detected by OpenBLAS itself.
  EXPECT_EQ(Changes({{"OPENBLAS_CORETYPE", "Prescott"}}, "Prescott").at("OPENBLAS_CORETYPE"), best);
  EXPECT_EQ(Changes({}, "Prescott").at("OPENBLAS_CORETYPE"), best);
  EXPECT_EQ(Changes({}, best).count("OPENBLAS_CORETYPE"), 0u);
}

}  // namespace
}  // namespace tunefarm::bench
