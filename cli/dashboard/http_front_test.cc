// The HTTP front over a fake source: routes, JSON, error codes, /metrics; and curve thinning.
#include "cli/dashboard/http_front.h"

#include <httplib.h>

#include "absl/strings/match.h"
#include "cli/dashboard/service_source.h"
#include "gtest/gtest.h"

namespace tunefarm::cli {
namespace {

class FakeSource final : public DashboardSource {
 public:
  v1::DashboardInfo Info() const override {
    v1::DashboardInfo info;
    info.set_role("tracker");
    return info;
  }
  absl::StatusOr<v1::FarmSummary> Farm() const override {
    v1::FarmSummary farm;
    v1::DeviceStatus* d = farm.add_device_status();
    d->set_worker_id("w<1>");
    d->mutable_device()->set_key("cpu-test");
    d->set_state(v1::DEVICE_STATE_BUSY);
    d->set_results_per_second(2.5);
    v1::QueueStatus* q = farm.add_queues();
    q->set_device_key("cpu-test");
    q->set_queued(3);
    return farm;
  }
  void WriteMetrics(PrometheusText& out) const override {
    WriteFarmMetrics(*Farm(), &latency_, nullptr, out);
  }
  Histogram latency_{{0.1}};
};

class HttpFrontTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto front = HttpFront::Start(&source_, HttpFrontOptions{});
    ASSERT_TRUE(front.ok()) << front.status();
    front_ = *std::move(front);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", front_->port());
  }
  FakeSource source_;
  std::unique_ptr<HttpFront> front_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(HttpFrontTest, Farm_ProtobufJson) {
  auto res = client_->Get("/api/farm");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  EXPECT_TRUE(absl::StrContains(res->body, "\"workerId\":\"w\\u003c1\\u003e\"")) << res->body;
  EXPECT_TRUE(absl::StrContains(res->body, "\"state\":\"DEVICE_STATE_BUSY\"")) << res->body;
  EXPECT_TRUE(absl::StrContains(res->body, "\"resultsPerSecond\":2.5")) << res->body;
}

TEST_F(HttpFrontTest, JobsOnTracker_UnimplementedAs501WithCode) {
  auto res = client_->Get("/api/jobs");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 501);
  EXPECT_TRUE(absl::StrContains(res->body, "\"code\":\"UNIMPLEMENTED\"")) << res->body;
}

TEST_F(HttpFrontTest, Page_ServedAtRootAndJobPaths_UnknownPath404) {
  auto root = client_->Get("/");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->status, 200);
  EXPECT_TRUE(absl::StartsWith(root->body, "<!DOCTYPE html>"));
  auto job = client_->Get("/jobs/job-7");
  ASSERT_TRUE(job);
  EXPECT_EQ(job->body, root->body);
  auto missing = client_->Get("/nothing-here");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST_F(HttpFrontTest, Metrics_PrometheusText) {
  source_.latency_.Observe(0.05);
  auto res = client_->Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_TRUE(absl::StartsWith(res->get_header_value("Content-Type"), "text/plain; version=0.0.4"));
  EXPECT_TRUE(absl::StrContains(
      res->body, "tunefarm_queue_depth{device_key=\"cpu-test\",state=\"queued\"} 3\n"));
  EXPECT_TRUE(
      absl::StrContains(res->body, "tunefarm_workers{device_key=\"cpu-test\",state=\"busy\"} 1\n"));
  EXPECT_TRUE(
      absl::StrContains(res->body, "tunefarm_workers{device_key=\"cpu-test\",state=\"lost\"} 0\n"));
  EXPECT_TRUE(
      absl::StrContains(res->body, "tunefarm_dispatch_latency_seconds_bucket{le=\"0.1\"} 1\n"));
}

TEST_F(HttpFrontTest, ForeignHostHeader_Forbidden) {
  auto rebound = client_->Get("/api/farm", {{"Host", "attacker.example:80"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  EXPECT_TRUE(absl::StrContains(rebound->body, "PERMISSION_DENIED")) << rebound->body;
  auto local = client_->Get("/api/farm", {{"Host", "localhost:8080"}});
  ASSERT_TRUE(local);
  EXPECT_EQ(local->status, 200);
}

TEST(HostAllowedTest, IpLiteralsLocalhostOwnHostAndListed) {
  HttpFrontOptions o;
  o.host = "dash.internal";
  o.allowed_hosts = {"Tunefarm.Example.com"};
  EXPECT_TRUE(HostAllowed("127.0.0.1:9000", o));
  EXPECT_TRUE(HostAllowed("[::1]:9000", o));
  EXPECT_TRUE(HostAllowed("LOCALHOST", o));
  EXPECT_TRUE(HostAllowed("dash.internal:80", o));
  EXPECT_TRUE(HostAllowed("tunefarm.example.com", o));
  EXPECT_FALSE(HostAllowed("evil.example.com:80", o));
  EXPECT_FALSE(HostAllowed("127.0.0.1.evil.example", o));
}

TEST(EnumLabelTest, KnownAndUnknownValues) {
  EXPECT_EQ(EnumLabel("DEVICE_STATE_NOISY", "DEVICE_STATE_", 3), "noisy");
  EXPECT_EQ(EnumLabel("", "DEVICE_STATE_", 9), "unknown_9");  // a newer tracker's state
  EXPECT_EQ(EnumLabel("JOB_", "JOB_", 1), "unknown_1");
}

TEST(HttpFrontStartTest, PortInUse_Unavailable) {
  FakeSource source;
  auto first = HttpFront::Start(&source, HttpFrontOptions{});
  ASSERT_TRUE(first.ok());
  auto second = HttpFront::Start(&source, HttpFrontOptions{"127.0.0.1", (*first)->port()});
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
}

TEST(ThinCurveTest, LongCurve_KeepsEveryImprovementAndTheLastPoint) {
  std::vector<db::CurvePoint> curve;
  for (int i = 1; i <= 1000; ++i) {
    double best = i == 500 ? 9 : (i > 500 ? 9 : 1);
    curve.push_back(db::CurvePoint{i, i % 7 == 0 ? 0.0 : 1.0, best, 0});
  }
  std::vector<db::CurvePoint> thin = ThinCurve(curve, 100);
  EXPECT_LE(thin.size(), 103u);
  EXPECT_EQ(thin.front().trial, 1);
  EXPECT_EQ(thin.back().trial, 1000);
  EXPECT_TRUE(std::any_of(thin.begin(), thin.end(), [](const auto& p) { return p.trial == 500; }));
  EXPECT_EQ(ThinCurve(curve, 2000).size(), 1000u);
}

}  // namespace
}  // namespace tunefarm::cli
