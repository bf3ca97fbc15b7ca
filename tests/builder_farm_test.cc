// Builder workers: a tracker, an in-process builder (the generic Worker over BuilderBackend,
// building two candidates at once)
// and simulated measuring devices. A tuning run that builds on the builder chooses the same
// configs and the same winner as one that builds locally (the builds are the same bytes, and
// the simulated devices' costs depend on the bytes only); malformed build requests are
// results with their error, and the builder keeps serving.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "farm/tracker_client.h"
#include "gtest/gtest.h"
#include "rpc_server/device_backend.h"
#include "rpc_server/worker.h"
#include "tracker/tracker_server.h"
#include "tuner/service/builder_backend.h"
#include "tuner/service/farm_build.h"
#include "tuner/tuning/measurer.h"
#include "tuner/tuning/strategy_factory.h"
#include "tuner/tuning/task.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm {
namespace {

constexpr char kToken[] = "builder-test-token";
constexpr char kDevices[] = "sim";
constexpr char kBuilders[] = "builder";

// A device whose cost is a function of the artifact's bytes (their hash), answered at once.
class HashCostBackend final : public DeviceBackend {
 public:
  void Describe(v1::DeviceDescription* device) const override { device->set_cpu_model("sim"); }
  v1::MeasureResult Measure(const v1::MeasureRequest& request, const std::string&,
                            const std::string&) override {
    v1::MeasureResult r;
    const std::string& h = request.artifact().hash();
    int bucket = 0;
    for (char c : h) bucket = (bucket * 31 + static_cast<unsigned char>(c)) % 1000;
    r.add_costs_s(1e-3 * (1 + bucket / 1000.0));
    return r;
  }
  absl::StatusOr<double> MeasureNoise() override { return 0.0; }
};

class BuilderFarmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TrackerServerOptions options;
    options.token = kToken;
    auto tracker = TrackerServer::Start(options);
    ASSERT_TRUE(tracker.ok()) << tracker.status();
    tracker_ = *std::move(tracker);
    StartWorker(kBuilders, std::make_unique<tuner::BuilderBackend>(), /*parallel=*/2);
    StartWorker(kDevices, std::make_unique<HashCostBackend>());
    StartWorker(kDevices, std::make_unique<HashCostBackend>());
    auto client = TrackerClient::Connect({.address = tracker_->address(), .token = kToken});
    ASSERT_TRUE(client.ok());
    client_ = *std::move(client);
    // Bounded: 1,000 waits of 10 ms for the three workers to register.
    for (int i = 0; i < 1000 && (tracker_->core().LiveDevices(kBuilders) < 1 ||
                                 tracker_->core().LiveDevices(kDevices) < 2);
         ++i) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    ASSERT_EQ(tracker_->core().LiveDevices(kBuilders), 1);
  }
  void TearDown() override {
    for (auto& w : workers_) w->Stop();
    for (std::thread& t : threads_) t.join();
  }
  void StartWorker(const std::string& key, std::unique_ptr<DeviceBackend> backend,
                   int parallel = 1) {
    WorkerOptions w;
    w.parallel = parallel;
    w.tracker_address = tracker_->address();
    w.token = kToken;
    w.key = key;
    w.calibration_period = absl::ZeroDuration();
    auto worker = Worker::Create(w, std::move(backend));
    ASSERT_TRUE(worker.ok());
    Worker* p = worker->get();
    workers_.push_back(*std::move(worker));
    threads_.emplace_back([p] { p->Run().IgnoreError(); });
  }
  // 40 trials of dense 64^3 (xgb, seed 3), built on the builders or here.
  tuner::TuneResult Tune(bool on_builders, const std::string& job) {
    return Tune(tuner::MakeTask("dense", {64, 64, 64}, "float32", "llvm", kDevices), on_builders,
                job);
  }
  // `trials` trials of `task` (xgb, seed 3, batches of 8), built on the builders or here.
  tuner::TuneResult Tune(const absl::StatusOr<tuner::TuneTask>& task, bool on_builders,
                         const std::string& job, int trials = 40) {
    EXPECT_TRUE(task.ok()) << task.status();
    if (!task.ok()) return tuner::TuneResult();
    auto strategy = tuner::MakeStrategy("xgb", *task, 3, nullptr);
    EXPECT_TRUE(strategy.ok());
    tuner::TrackerMeasurerOptions mo;
    mo.job_id = job;
    mo.device_key = kDevices;
    tuner::TrackerMeasurer measurer(client_.get(), mo);
    tuner::TuneOptions to;
    to.trials = trials;
    to.batch_size = 8;
    to.top_k = 0;
    if (on_builders) {
      to.build_batch = [&](const std::vector<int64_t>& indices) {
        auto built =
            tuner::BuildOnFarm(*client_, job, kBuilders, *task, indices, absl::Seconds(120));
        EXPECT_TRUE(built.ok()) << built.status();
        ++farm_batches_;
        return built.ok() ? *built : std::vector<tuner::BuildResult>();
      };
    }
    auto result = tuner::Tune(*task, **strategy, measurer, nullptr, to, nullptr);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : tuner::TuneResult();
  }

  std::unique_ptr<TrackerServer> tracker_;
  std::unique_ptr<TrackerClient> client_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
  int farm_batches_ = 0;
};

TEST_F(BuilderFarmTest, BuildsOnBuilders_SameWinnerAsLocalBuilds) {
  tuner::TuneResult local = Tune(false, "local");
  tuner::TuneResult farm = Tune(true, "farm");
  EXPECT_EQ(farm_batches_, 5);
  EXPECT_EQ(local.measured, 40);
  EXPECT_EQ(farm.measured, 40);
  EXPECT_EQ(farm.errors, local.errors);
  ASSERT_GE(local.best_index, 0);
  EXPECT_EQ(farm.best_index, local.best_index);
  EXPECT_DOUBLE_EQ(farm.best_cost_s, local.best_cost_s);
}

// A program of the tensor-expression language builds on the builders too (they parse its
// canonical text again), and gives the same winner as building here.
TEST_F(BuilderFarmTest, ProgramBuildsOnBuilders_SameWinnerAsLocalBuilds) {
  const std::string text =
      "A = input(float32, [M, K])\n"
      "W = input(float32, [N, K])\n"
      "C[i, j] = sum(k: A[i, k] * W[j, k])\n";
  auto task = [&] {
    return tuner::MakeProgramTask("farm_dense", text, {{"M", 32}, {"N", 48}, {"K", 64}}, "llvm",
                                  kDevices);
  };
  auto spec = tuner::TaskSpecOf(*task());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->program_name(), "farm_dense");
  EXPECT_EQ(spec->shapes().at("N"), 48);
  tuner::TuneResult local = Tune(task(), false, "program-local", 16);
  tuner::TuneResult farm = Tune(task(), true, "program-farm", 16);
  EXPECT_EQ(farm_batches_, 2);
  EXPECT_EQ(farm.measured, 16);
  EXPECT_EQ(farm.errors, local.errors);
  ASSERT_GE(local.best_index, 0);
  EXPECT_EQ(farm.best_index, local.best_index);
  EXPECT_DOUBLE_EQ(farm.best_cost_s, local.best_cost_s);
}

// The builder trusts no input: an unknown template, a config outside the space and a request
// with nothing to build are BUILD_ERROR results with their reason; the builder still builds.
TEST_F(BuilderFarmTest, MalformedBuildRequests_AreErrorResults) {
  auto request = [](const std::string& id, const std::string& tmpl, int64_t index) {
    v1::MeasureRequest r;
    r.set_request_id(id);
    r.set_kernel_name("tunefarm_kernel");
    v1::BuildSpec* b = r.mutable_build();
    b->mutable_task()->set_template_name(tmpl);
    for (int64_t a : {32, 32, 32}) b->mutable_task()->add_args(a);
    b->set_target("llvm");
    b->set_config_index(index);
    return r;
  };
  auto results =
      client_->MeasureBatch("bad", kBuilders, 0,
                            {request("bad/unknown", "no_such_template", 0),
                             request("bad/range", "dense", 1 << 30), request("bad/ok", "dense", 0)},
                            absl::Seconds(60));
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 3u);
  for (const v1::MeasureResult& r : *results) {
    if (r.request_id() == "bad/ok") {
      EXPECT_EQ(r.error(), v1::ERROR_NONE) << r.message();
      EXPECT_FALSE(r.built().artifact().content().empty());
      EXPECT_EQ(r.built().tensors_size(), 3);
    } else {
      EXPECT_EQ(r.error(), v1::BUILD_ERROR) << r.request_id();
      EXPECT_FALSE(r.message().empty());
    }
  }
  // A measuring request sent to the builders' key is refused by the builder, not run.
  v1::MeasureRequest measure;
  measure.set_request_id("bad/measure");
  measure.set_kernel_name("k");
  measure.mutable_artifact()->set_content("bytes");
  measure.mutable_artifact()->set_hash(
      "a0a3a3c3e4d2ba3d4a3c1f9d3bb5e5d0d8b2a4e1f5c6b7a8d9e0f1a2b3c4d5e6");
  auto refused = client_->MeasureBatch("bad2", kBuilders, 0, {measure}, absl::Seconds(10));
  EXPECT_FALSE(refused.ok());  // the hash does not match: the tracker refuses it first
}

}  // namespace
}  // namespace tunefarm
