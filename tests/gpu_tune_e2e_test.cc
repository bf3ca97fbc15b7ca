// End to end on a GPU: fp32 and fp16 dense tuned on the embedded local farm with one CUDA
// worker; every trial is recorded, the best config is valid and correct (the worker checks
// each kernel against the CPU reference). Skips, saying why, on a machine without a GPU —
// there the same path is covered piecewise (tuner/templates/gpu_*_test by host emulation and
// ptxas, rpc_server/cuda_*_test against a fake driver).
#include <cstdio>

#include "db/tuning_log.h"
#include "farm/farm_setup.h"
#include "gtest/gtest.h"
#include "tuner/tuning/strategy_factory.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::tuner {
namespace {

TEST(GpuTuneEndToEnd, DenseFp32AndFp16_OnLocalGpuWorker) {
  FarmSetupOptions fo;
  fo.key = "gpu-test";
  fo.device = "cuda:0";
  auto farm = StartFarm(fo);
  if (farm.status().code() == absl::StatusCode::kUnavailable) {
    GTEST_SKIP() << farm.status().message();
  }
  ASSERT_TRUE(farm.ok()) << farm.status();
  std::string db_path = ::testing::TempDir() + "/gpu_tune_e2e.db";
  std::remove(db_path.c_str());
  auto log = db::TuningLog::Open(db_path);
  ASSERT_TRUE(log.ok()) << log.status();
  for (const char* dtype : {"float32", "float16"}) {
    auto task = MakeTask("dense", {128, 64, 96}, dtype, "cuda -arch=sm_80", "gpu-test");
    ASSERT_TRUE(task.ok()) << task.status();
    auto strategy = MakeStrategy("random", *task, 1, nullptr);
    ASSERT_TRUE(strategy.ok());
    TrackerMeasurerOptions mo;
    mo.job_id = std::string("gpu-e2e-") + dtype;
    mo.device_key = "gpu-test";
    mo.timing.set_repeat(2);
    mo.timing.set_min_repeat_ms(1);
    TrackerMeasurer measurer((*farm)->client.get(), mo);
    TuneOptions options;
    options.trials = 24;
    options.batch_size = 8;
    options.top_k = 1;
    auto result = Tune(*task, **strategy, measurer, log->get(), options, nullptr);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->trials, 24);
    EXPECT_GE(result->best_index, 0) << dtype;
    EXPECT_GT(result->best_gflops, 0) << dtype;
    // Configs fail only by the GPU verifier (shared memory): never wrong answers or crashes.
    int wrong = 0;
    ASSERT_TRUE((*log)
                    ->ForEachRecord({},
                                    [&](const db::Record& r) {
                                      if (r.error == db::ErrorClass::kWrongAnswer ||
                                          r.error == db::ErrorClass::kRuntimeError) {
                                        ++wrong;
                                        ADD_FAILURE() << r.config_json << ": " << r.error_message;
                                      }
                                      return absl::OkStatus();
                                    })
                    .ok());
    EXPECT_EQ(wrong, 0);
  }
}

}  // namespace
}  // namespace tunefarm::tuner
