// End to end on a GPU: fp32 and fp16 dense, and programs of the tensor-expression language in
// their generated GPU spaces, tuned on the embedded local farm with one CUDA worker; every
// trial is recorded, the best config is valid and correct (the worker checks each kernel
// against the CPU reference). Skips, saying why, on a machine without a GPU —
// there the same path is covered piecewise (tuner/templates/gpu_*_test by host emulation and
// ptxas, rpc_server/cuda_*_test against a fake driver).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "db/tuning_log.h"
#include "farm/farm_setup.h"
#include "gtest/gtest.h"
#include "tuner/tuning/strategy_factory.h"
#include "tuner/tuning/task.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::tuner {
namespace {

// Configs fail only by the GPU verifier (shared memory, threads): never wrong answers or
// crashes.
void ExpectNoWrongAnswers(db::TuningLog& log) {
  ASSERT_TRUE(log.ForEachRecord({},
                                [&](const db::Record& r) {
                                  if (r.error == db::ErrorClass::kWrongAnswer ||
                                      r.error == db::ErrorClass::kRuntimeError) {
                                    ADD_FAILURE() << r.config_json << ": " << r.error_message;
                                  }
                                  return absl::OkStatus();
                                })
                  .ok());
}

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
    ExpectNoWrongAnswers(**log);
  }
}

TEST(GpuTuneEndToEnd, ProgramsInGeneratedGpuSpaces_OnLocalGpuWorker) {
  FarmSetupOptions fo;
  fo.key = "gpu-test";
  fo.device = "cuda:0";
  auto farm = StartFarm(fo);
  if (farm.status().code() == absl::StatusCode::kUnavailable) {
    GTEST_SKIP() << farm.status().message();
  }
  ASSERT_TRUE(farm.ok()) << farm.status();
  std::string db_path = ::testing::TempDir() + "/gpu_tune_programs.db";
  std::remove(db_path.c_str());
  auto log = db::TuningLog::Open(db_path);
  ASSERT_TRUE(log.ok()) << log.status();
  const std::vector<std::pair<std::string, absl::flat_hash_map<std::string, int64_t>>> programs = {
      {"dense_bias_gelu", {{"M", 64}, {"N", 96}, {"K", 128}}},
      {"attention_softmax", {{"Hd", 2}, {"L", 64}, {"D", 32}}},
      {"layer_norm", {{"N", 32}, {"D", 200}}},
      {"stencil5", {{"H", 100}, {"W", 130}}}};
  for (const auto& [file, shapes] : programs) {
    std::ifstream in("examples/programs/" + file + ".te");
    std::stringstream text;
    text << in.rdbuf();
    auto task = MakeProgramTask(file, text.str(), shapes, "cuda -arch=sm_80", "gpu-test");
    ASSERT_TRUE(task.ok()) << task.status();
    auto strategy = MakeStrategy("random", *task, 1, nullptr);
    ASSERT_TRUE(strategy.ok());
    TrackerMeasurerOptions mo;
    mo.job_id = "gpu-e2e-" + file;
    mo.device_key = "gpu-test";
    mo.timing.set_repeat(2);
    mo.timing.set_min_repeat_ms(1);
    TrackerMeasurer measurer((*farm)->client.get(), mo);
    TuneOptions options;
    options.trials = 16;
    options.batch_size = 8;
    options.top_k = 1;
    auto result = Tune(*task, **strategy, measurer, log->get(), options, nullptr);
    ASSERT_TRUE(result.ok()) << file << ": " << result.status();
    EXPECT_EQ(result->trials, 16) << file;
    EXPECT_GE(result->best_index, 0) << file;
    EXPECT_GT(result->best_gflops, 0) << file;
  }
  ExpectNoWrongAnswers(**log);
}

}  // namespace
}  // namespace tunefarm::tuner
