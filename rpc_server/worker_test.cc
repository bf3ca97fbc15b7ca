// The worker against a real tracker: what it reports with every result.
#include "rpc_server/worker.h"

#include <memory>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "common/content_hash.h"
#include "farm/tracker_client.h"
#include "gtest/gtest.h"
#include "rpc_server/device_backend.h"
#include "tracker/tracker_server.h"

namespace tunefarm {
namespace {

constexpr char kToken[] = "worker-test-token";
constexpr char kKey[] = "board";

// A device that answers every request at once with one cost; `emulated` as its description.
class FixedCostBackend final : public DeviceBackend {
 public:
  explicit FixedCostBackend(bool emulated) : emulated_(emulated) {}
  void Describe(v1::DeviceDescription* device) const override {
    device->set_cpu_model("sim");
    device->set_emulated(emulated_);
  }
  v1::MeasureResult Measure(const v1::MeasureRequest&, const std::string&,
                            const std::string&) override {
    v1::MeasureResult r;
    r.add_costs_s(1e-3);
    return r;
  }
  absl::StatusOr<double> MeasureNoise() override { return 0.0; }

 private:
  const bool emulated_;
};

// One measurement by a worker over `backend`, through a tracker.
v1::MeasureResult MeasureOnce(std::unique_ptr<DeviceBackend> backend) {
  TrackerServerOptions options;
  options.token = kToken;
  auto tracker = TrackerServer::Start(options);
  EXPECT_TRUE(tracker.ok()) << tracker.status();
  if (!tracker.ok()) return {};
  WorkerOptions w;
  w.tracker_address = (*tracker)->address();
  w.token = kToken;
  w.key = kKey;
  w.calibration_period = absl::ZeroDuration();
  auto worker = Worker::Create(w, std::move(backend));
  EXPECT_TRUE(worker.ok()) << worker.status();
  if (!worker.ok()) return {};
  std::thread run([&] { (*worker)->Run().IgnoreError(); });
  // Bounded: 1,000 waits of 10 ms for the worker to register.
  for (int i = 0; i < 1000 && (*tracker)->core().LiveDevices(kKey) < 1; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  v1::MeasureResult result;
  auto client = TrackerClient::Connect({.address = (*tracker)->address(), .token = kToken});
  EXPECT_TRUE(client.ok()) << client.status();
  if (client.ok()) {
    v1::MeasureRequest request;
    request.set_request_id("job/1");
    request.set_kernel_name("k");
    request.mutable_artifact()->set_content("bytes");
    request.mutable_artifact()->set_hash(ContentHash("bytes"));
    auto results = (*client)->MeasureBatch("job", kKey, 0, {request}, absl::Seconds(30));
    EXPECT_TRUE(results.ok()) << results.status();
    if (results.ok() && results->size() == 1) result = (*results)[0];
  }
  (*worker)->Stop();
  run.join();
  return result;
}

TEST(Worker, EmulatedDevice_EveryResultSaysEmulated) {
  v1::MeasureResult r = MeasureOnce(std::make_unique<FixedCostBackend>(/*emulated=*/true));
  EXPECT_EQ(r.error(), v1::ERROR_NONE) << r.message();
  EXPECT_EQ(r.device_key(), kKey);
  EXPECT_TRUE(r.emulated());
}

TEST(Worker, RealDevice_ResultsNotEmulated) {
  v1::MeasureResult r = MeasureOnce(std::make_unique<FixedCostBackend>(/*emulated=*/false));
  EXPECT_EQ(r.error(), v1::ERROR_NONE) << r.message();
  EXPECT_EQ(r.request_id(), "job/1");
  EXPECT_FALSE(r.emulated());
}

}  // namespace
}  // namespace tunefarm
