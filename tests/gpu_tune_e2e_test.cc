// End to end on a GPU: fp32 and fp16 dense, and programs of the tensor-expression language in
// their generated GPU spaces, tuned on the embedded local farm with one CUDA worker; every
// trial is recorded, the best config is valid and correct (the worker checks each kernel
// against the CPU reference). Skips, saying why, on a machine without a GPU —
// there the same path is covered piecewise (tuner/templates/gpu_*_test by host emulation and
// ptxas, rpc_server/cuda_*_test against a fake driver).
#include <cstdio>
#include <fstream>
#include <memory>
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

// A local farm with one CUDA worker and a fresh tuning log per test; skips where there is no GPU.
class GpuTuneEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    FarmSetupOptions fo;
    fo.key = "gpu-test";
    fo.device = "cuda:0";
    auto farm = StartFarm(fo);
    if (farm.status().code() == absl::StatusCode::kUnavailable) {
      GTEST_SKIP() << farm.status().message();
    }
    ASSERT_TRUE(farm.ok()) << farm.status();
    farm_ = *std::move(farm);
    const std::string db_path = ::testing::TempDir() + "/" +
                                ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                                ".db";
    std::remove(db_path.c_str());
    auto log = db::TuningLog::Open(db_path);
    ASSERT_TRUE(log.ok()) << log.status();
    log_ = *std::move(log);
  }

  // Tunes `trials` random configs of `task` on the GPU worker; every one is recorded, and a
  // valid best is found.
  void TuneRandom(const TuneTask& task, const std::string& job_id, int trials) {
    auto strategy = MakeStrategy("random", task, 1, nullptr);
    ASSERT_TRUE(strategy.ok());
    TrackerMeasurerOptions mo;
    mo.job_id = job_id;
    mo.device_key = "gpu-test";
    mo.timing.set_repeat(2);
    mo.timing.set_min_repeat_ms(1);
    TrackerMeasurer measurer(farm_->client.get(), mo);
    TuneOptions options;
    options.trials = trials;
    options.batch_size = 8;
    options.top_k = 1;
    auto result = Tune(task, **strategy, measurer, log_.get(), options, nullptr);
    ASSERT_TRUE(result.ok()) << job_id << ": " << result.status();
    EXPECT_EQ(result->trials, trials) << job_id;
    EXPECT_GE(result->best_index, 0) << job_id;
    EXPECT_GT(result->best_gflops, 0) << job_id;
    ExpectNoWrongAnswers(*log_);
  }

  std::unique_ptr<Farm> farm_;
  std::unique_ptr<db::TuningLog> log_;
};

TEST_F(GpuTuneEndToEnd, DenseFp32AndFp16_OnLocalGpuWorker) {
  for (const char* dtype : {"float32", "float16"}) {
    auto task = MakeTask("dense", {128, 64, 96}, dtype, "cuda -arch=sm_80", "gpu-test");
    ASSERT_TRUE(task.ok()) << task.status();
    TuneRandom(*task, std::string("gpu-e2e-") + dtype, 24);
  }
}

TEST_F(GpuTuneEndToEnd, ProgramsInGeneratedGpuSpaces_OnLocalGpuWorker) {
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
    TuneRandom(*task, "gpu-e2e-" + file, 16);
  }
}

}  // namespace
}  // namespace tunefarm::tuner
