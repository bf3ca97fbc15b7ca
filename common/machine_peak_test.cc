#include "common/machine_peak.h"

#include <cpuid.h>

#include <cmath>

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

bool CpuHasAmxInt8() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 24)) != 0 && (edx & (1u << 25)) != 0;
}

// The AMX probe runs its tiles where the core has them (the tile state is granted to the
// process first; without that grant tile instructions fault) and says 0 where it has none.
// Nothing here depends on the machine's speed: only whether a rate was measured.
TEST(MachinePeakTest, AmxInt8Peak_MeasuredWhereTheCoreHasAmx_ZeroElsewhere) {
  const double amx = MeasureAmxInt8PeakGops();
  EXPECT_TRUE(std::isfinite(amx));
  if (CpuHasAmxInt8()) {
    EXPECT_GT(amx, 0.0);
  } else {
    EXPECT_EQ(amx, 0.0);
  }
  EXPECT_EQ(MeasureAmxInt8PeakGops() > 0, amx > 0);  // a second call: the grant is kept
}

TEST(MachinePeakTest, VnniAndFmaPeaks_Positive) {
  EXPECT_GT(MeasureFmaPeakGflops(1), 0.0);
  const double probe = FmaProbeGflops();  // one short run: a reading, not the peak
  EXPECT_TRUE(std::isfinite(probe));
  EXPECT_GT(probe, 0.0);
  if (__builtin_cpu_supports("avx512vnni")) EXPECT_GT(MeasureVnniPeakGops(), 0.0);
  EXPECT_EQ(MeasureMaddPeakGops() > 0, __builtin_cpu_supports("avx2") != 0);
}

}  // namespace
}  // namespace tunefarm
