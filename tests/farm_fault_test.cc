// Fault tests of the farm:
//  (a) a `tunefarm server` subprocess is SIGKILLed mid-batch: its leased work is re-queued and
//      finished by the others, nothing lost, nothing doubled;
//  (c) the tracker restarts on the same port: workers re-register by themselves;
//  (d) garbage, oversized, unauthenticated and unknown-key requests get clear gRPC errors;
//      each role's token opens only that role's calls.
// (b), failing kernels, lives in farm_batch_test.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "farm/tracker_client.h"
#include "gtest/gtest.h"
#include "proto/tracker.grpc.pb.h"
#include "rpc_server/cpu_backend.h"
#include "rpc_server/sandbox_process.h"
#include "rpc_server/worker.h"
#include "tests/farm_test_util.h"
#include "tracker/tracker_server.h"

extern char** environ;

namespace tunefarm {
namespace {

using ::tunefarm::testing::KernelBytes;
using ::tunefarm::testing::MakeArtifact;
using ::tunefarm::testing::VaddRequest;
using ::tunefarm::testing::Variant;

constexpr char kKey[] = "cpu-test";
constexpr char kToken[] = "s3cret-token";

// Waits (bounded) until `key` has `n` live devices.
bool WaitForDevices(TrackerCore& core, int n, absl::Duration timeout = absl::Seconds(20)) {
  const absl::Time until = absl::Now() + timeout;
  while (core.LiveDevices(kKey) != n) {
    if (absl::Now() > until) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

pid_t SpawnServer(const std::string& tracker, int i) {
  std::string bin = absl::StrCat(std::getenv("TEST_SRCDIR"), "/tunefarm/cli/tunefarm");
  std::vector<std::string> args = {bin,
                                   "server",
                                   "--tracker",
                                   tracker,
                                   "--key",
                                   kKey,
                                   absl::StrCat("--worker_id=proc-", i),
                                   "--calibration_period_s=0",
                                   "--memory_limit_mb=1024"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  setenv("TUNEFARM_TOKEN", kToken, 1);
  // The child finds the sandbox through its own runfiles tree.
  setenv("TUNEFARM_SANDBOX",
         absl::StrCat(std::getenv("TEST_SRCDIR"), "/tunefarm/rpc_server/tunefarm_sandbox").c_str(),
         1);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, bin.c_str(), nullptr, nullptr, argv.data(), environ), 0);
  return pid;
}

TEST(FarmFault, ServerKilledMidBatch_WorkRequeued_NothingLostOrDoubled) {
  TrackerServerOptions options;
  options.token = kToken;
  options.core.heartbeat_interval = absl::Milliseconds(200);
  options.core.heartbeat_timeout = absl::Milliseconds(1500);
  auto tracker = TrackerServer::Start(options);
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  std::vector<pid_t> pids;
  for (int i = 0; i < 3; ++i) pids.push_back(SpawnServer((*tracker)->address(), i));
  ASSERT_TRUE(WaitForDevices((*tracker)->core(), 3));

  const std::string reference = KernelBytes("vadd");
  std::vector<v1::MeasureRequest> batch;
  for (int i = 0; i < 60; ++i) {
    v1::MeasureRequest r = VaddRequest(absl::StrCat("kill/", i), Variant(reference, i), reference);
    r.mutable_timing()->set_min_repeat_ms(40);  // ~80 ms per measurement: the batch takes a while
    batch.push_back(r);
  }
  auto client = TrackerClient::Connect({.address = (*tracker)->address(), .token = kToken});
  ASSERT_TRUE(client.ok());
  std::map<std::string, int> seen;
  std::map<std::string, int> by_worker;
  bool killed = false;
  auto results = (*client)->MeasureBatch("job-kill", kKey, 0, batch, absl::Seconds(90),
                                         [&](const v1::MeasureResult& r) {
                                           ++seen[r.request_id()];
                                           ++by_worker[r.worker_id()];
                                           if (!killed && seen.size() >= 10) {
                                             kill(pids[0], SIGKILL);
                                             killed = true;
                                           }
                                           return absl::OkStatus();
                                         });
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_TRUE(killed);
  ASSERT_EQ(results->size(), batch.size());
  for (const v1::MeasureResult& r : *results) {
    EXPECT_EQ(r.error(), v1::ERROR_NONE) << r.request_id() << ": " << r.message();
  }
  for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << id;
  EXPECT_EQ(seen.size(), batch.size());
  EXPECT_GT(by_worker["proc-1"] + by_worker["proc-2"], 0);
  // The killed server is reported lost; the others are alive.
  EXPECT_TRUE(WaitForDevices((*tracker)->core(), 2));
  for (pid_t pid : pids) {
    kill(pid, SIGTERM);  // graceful for the survivors
    int status = 0;
    waitpid(pid, &status, 0);
  }
}

// A backend that measures its first request at once and holds every later one until `open` is
// notified (at most 60 s each): a batch cannot finish behind a test's back, whatever the
// machine's speed.
class GatedBackend final : public DeviceBackend {
 public:
  GatedBackend(std::unique_ptr<DeviceBackend> inner, absl::Notification* open)
      : inner_(std::move(inner)), open_(open) {}
  void Describe(v1::DeviceDescription* device) const override { inner_->Describe(device); }
  v1::MeasureResult Measure(const v1::MeasureRequest& request, const std::string& artifact_path,
                            const std::string& reference_path) override {
    if (measured_++ > 0) open_->WaitForNotificationWithTimeout(absl::Seconds(60));
    return inner_->Measure(request, artifact_path, reference_path);
  }
  absl::StatusOr<double> MeasureNoise() override { return inner_->MeasureNoise(); }

 private:
  std::unique_ptr<DeviceBackend> inner_;
  absl::Notification* open_;
  int measured_ = 0;  // Measure is called from one thread at a time.
};

// An in-process CPU worker of kKey on the tracker at `address`, sandboxed like a server's; with
// `gate`, one that measures its first request and holds the rest until `gate` is notified
// (GatedBackend).
absl::StatusOr<std::unique_ptr<Worker>> StartInProcessWorker(
    const std::string& address, absl::Duration lease_wait = absl::Milliseconds(200),
    absl::Notification* gate = nullptr) {
  absl::StatusOr<std::string> sandbox = FindSandboxBinary();
  if (!sandbox.ok()) return sandbox.status();
  WorkerOptions w;
  w.tracker_address = address;
  w.token = kToken;
  w.key = kKey;
  w.calibration_period = absl::ZeroDuration();
  w.lease_wait = lease_wait;
  std::unique_ptr<DeviceBackend> backend =
      std::make_unique<CpuBackend>(SandboxOptions{*sandbox, 1024});
  if (gate != nullptr) backend = std::make_unique<GatedBackend>(std::move(backend), gate);
  return Worker::Create(w, std::move(backend));
}

// A tracker started again on `port` (which may take a moment to free up).
absl::StatusOr<std::unique_ptr<TrackerServer>> RestartTracker(TrackerServerOptions options,
                                                              int port) {
  options.listen_address = absl::StrCat("127.0.0.1:", port);
  absl::StatusOr<std::unique_ptr<TrackerServer>> restarted;
  for (int attempt = 0; attempt < 50; ++attempt) {
    restarted = TrackerServer::Start(options);
    if (restarted.ok()) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return restarted;
}

// A worker waiting in a long poll (a minute here) stops at once when asked: Stop() cancels
// the poll, and the worker says goodbye, so the tracker forgets it.
TEST(FarmFault, StopDuringLongPoll_WorkerLeavesAtOnce) {
  TrackerServerOptions options;
  options.token = kToken;
  auto tracker = TrackerServer::Start(options);
  ASSERT_TRUE(tracker.ok());
  auto worker = StartInProcessWorker((*tracker)->address(), absl::Minutes(1));
  ASSERT_TRUE(worker.ok()) << worker.status();
  absl::Status run_status;
  std::thread run([&] { run_status = (*worker)->Run(); });
  ASSERT_TRUE(WaitForDevices((*tracker)->core(), 1));
  // Bounded: up to 1,000 waits of 10 ms for the worker to be inside its poll.
  for (int i = 0; i < 1000 && (*tracker)->core().WaitingLeases(kKey) < 1; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ((*tracker)->core().WaitingLeases(kKey), 1);
  const absl::Time stop = absl::Now();
  (*worker)->Stop();
  run.join();
  // Far below the poll's minute: the poll was cancelled, not waited out.
  EXPECT_LT(absl::Now() - stop, absl::Seconds(30));
  EXPECT_TRUE(run_status.ok()) << run_status;
  EXPECT_EQ((*tracker)->core().LiveDevices(kKey), 0);
}

TEST(FarmFault, TrackerRestarts_WorkersReregister) {
  TrackerServerOptions options;
  options.token = kToken;
  auto tracker = TrackerServer::Start(options);
  ASSERT_TRUE(tracker.ok());
  const int port = (*tracker)->port();
  auto worker = StartInProcessWorker((*tracker)->address());
  ASSERT_TRUE(worker.ok()) << worker.status();
  std::thread run([&] { (*worker)->Run().IgnoreError(); });
  ASSERT_TRUE(WaitForDevices((*tracker)->core(), 1));

  const std::string reference = KernelBytes("vadd");
  auto measure = [&](const std::string& address, const std::string& id) {
    auto client = TrackerClient::Connect({.address = address, .token = kToken});
    EXPECT_TRUE(client.ok());
    auto results = (*client)->MeasureBatch(
        "job-" + id, kKey, 0, {VaddRequest(id, reference, reference)}, absl::Seconds(30));
    EXPECT_TRUE(results.ok()) << results.status();
    return results.ok() && results->size() == 1 && (*results)[0].error() == v1::ERROR_NONE;
  };
  EXPECT_TRUE(measure((*tracker)->address(), "before"));

  (*tracker)->Shutdown();
  tracker->reset();
  absl::StatusOr<std::unique_ptr<TrackerServer>> restarted = RestartTracker(options, port);
  ASSERT_TRUE(restarted.ok()) << restarted.status();
  ASSERT_TRUE(WaitForDevices((*restarted)->core(), 1));
  // The tracker counts the worker as soon as Register lands; the worker counts it on return.
  for (int i = 0; i < 100 && (*worker)->registrations() < 2; ++i) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_GE((*worker)->registrations(), 2);
  EXPECT_TRUE(measure((*restarted)->address(), "after"));
  (*worker)->Stop();
  run.join();
}

// The tracker's state is lost mid-batch (stopped and started again on the same port, as after
// a SIGKILL): the client resubmits what it still waits for, the workers re-register, and the
// batch completes with every result exactly once and no action from the caller.
TEST(FarmFault, TrackerRestartsMidBatch_BatchCompletesExactlyOnce) {
  TrackerServerOptions options;
  options.token = kToken;
  auto tracker = TrackerServer::Start(options);
  ASSERT_TRUE(tracker.ok());
  const int port = (*tracker)->port();
  const std::string address = (*tracker)->address();
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::thread> runs;
  for (int i = 0; i < 2; ++i) {
    auto worker = StartInProcessWorker(address);
    ASSERT_TRUE(worker.ok()) << worker.status();
    workers.push_back(*std::move(worker));
  }
  for (auto& w : workers) runs.emplace_back([&w] { w->Run().IgnoreError(); });
  ASSERT_TRUE(WaitForDevices((*tracker)->core(), 2));

  const std::string reference = KernelBytes("vadd");
  std::vector<v1::MeasureRequest> batch;
  for (int i = 0; i < 40; ++i) {
    v1::MeasureRequest r =
        VaddRequest(absl::StrCat("r", i), Variant(KernelBytes("vadd"), 2000 + i), reference);
    r.mutable_timing()->set_repeat(20);  // slow enough that the restart lands mid-batch
    batch.push_back(r);
  }
  auto client = TrackerClient::Connect({.address = address, .token = kToken});
  ASSERT_TRUE(client.ok());
  absl::Mutex mu;
  std::map<std::string, int> seen;
  absl::Notification restart;
  absl::StatusOr<std::vector<v1::MeasureResult>> results;
  std::thread measure([&] {
    results = (*client)->MeasureBatch("job-restart", kKey, 0, batch, absl::Seconds(120),
                                      [&](const v1::MeasureResult& r) {
                                        absl::MutexLock lock(&mu);
                                        if (++seen[r.request_id()] == 1 && seen.size() == 5) {
                                          restart.Notify();
                                        }
                                        return absl::OkStatus();
                                      });
  });
  EXPECT_TRUE(restart.WaitForNotificationWithTimeout(absl::Seconds(60)));
  (*tracker)->Shutdown();
  tracker->reset();
  absl::SleepFor(absl::Seconds(1));  // the farm is without a tracker for a while
  absl::StatusOr<std::unique_ptr<TrackerServer>> restarted = RestartTracker(options, port);
  ASSERT_TRUE(restarted.ok()) << restarted.status();
  measure.join();
  for (auto& w : workers) w->Stop();
  for (std::thread& t : runs) t.join();
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), batch.size());
  for (const v1::MeasureResult& r : *results) {
    EXPECT_EQ(r.error(), v1::ERROR_NONE) << r.request_id() << ": " << r.message();
  }
  EXPECT_EQ(seen.size(), batch.size());
  for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << id;
}

// The user cancels while the tracker is gone (stopped mid-batch, never back): the batch ends
// with Cancelled instead of retrying until its timeout, and what arrived before is kept.
TEST(FarmFault, CancelWhileTrackerGone_BatchEndsCancelledKeepingResults) {
  TrackerServerOptions options;
  options.token = kToken;
  auto tracker = TrackerServer::Start(options);
  ASSERT_TRUE(tracker.ok());
  // The worker measures one request and holds the rest until it is stopped: on a fast enough
  // machine it would otherwise finish all 20 before the tracker goes.
  absl::Notification gate;
  auto worker = StartInProcessWorker((*tracker)->address(), absl::Milliseconds(200), &gate);
  ASSERT_TRUE(worker.ok()) << worker.status();
  std::thread run([&] { (*worker)->Run().IgnoreError(); });
  ASSERT_TRUE(WaitForDevices((*tracker)->core(), 1));
  const std::string reference = KernelBytes("vadd");
  std::vector<v1::MeasureRequest> batch;
  for (int i = 0; i < 20; ++i) {
    v1::MeasureRequest r =
        VaddRequest(absl::StrCat("c", i), Variant(KernelBytes("vadd"), 3000 + i), reference);
    r.mutable_timing()->set_repeat(20);
    batch.push_back(r);
  }
  auto client = TrackerClient::Connect({.address = (*tracker)->address(), .token = kToken});
  ASSERT_TRUE(client.ok());
  std::atomic<int> seen{0};
  std::atomic<bool> cancel{false};
  absl::Notification first;
  absl::StatusOr<std::vector<v1::MeasureResult>> results;
  absl::Time cancelled_at;
  absl::Time ended_at;
  std::thread measure([&] {
    results = (*client)->MeasureBatch(
        "job-cancel", kKey, 0, batch, absl::Minutes(10),
        [&](const v1::MeasureResult&) {
          if (++seen == 1) first.Notify();
          return absl::OkStatus();
        },
        [&] { return cancel.load(); });
    ended_at = absl::Now();
  });
  ASSERT_TRUE(first.WaitForNotificationWithTimeout(absl::Seconds(60)));
  (*worker)->Stop();
  gate.Notify();  // The held measurement returns; the stopped worker takes no more.
  run.join();
  (*tracker)->Shutdown();
  tracker->reset();
  cancelled_at = absl::Now();
  cancel = true;
  measure.join();
  ASSERT_FALSE(results.ok());
  EXPECT_TRUE(absl::IsCancelled(results.status())) << results.status();
  EXPECT_GE(seen.load(), 1);
  // Bounded by the 2 s between checks (plus one call's connect failure), far from the 10 min
  // timeout: a loose bound that no machine's speed decides.
  EXPECT_LT(ended_at - cancelled_at, absl::Seconds(60));
}

class BadRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TrackerServerOptions options;
    options.token = kToken;
    options.max_message_bytes = 1 << 20;
    options.core.known_keys = {kKey};
    auto tracker = TrackerServer::Start(options);
    ASSERT_TRUE(tracker.ok());
    tracker_ = std::move(*tracker);
  }
  std::unique_ptr<TrackerClient> Client(const std::string& token) {
    auto client = TrackerClient::Connect({.address = tracker_->address(), .token = token});
    EXPECT_TRUE(client.ok());
    return std::move(*client);
  }
  std::unique_ptr<TrackerServer> tracker_;
};

TEST_F(BadRequestTest, WrongOrMissingToken_Unauthenticated) {
  const std::string vadd = KernelBytes("vadd");
  for (const std::string& token : {std::string("wrong"), std::string()}) {
    auto r = Client(token)->Submit("j", kKey, 0, {VaddRequest("a", vadd, vadd)});
    EXPECT_EQ(r.status().code(), absl::StatusCode::kUnauthenticated) << r.status();
  }
  // Worker registration needs the token too.
  auto stub = v1::Tracker::NewStub(
      grpc::CreateChannel(tracker_->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  v1::RegisterRequest reg;
  reg.set_worker_id("w");
  reg.set_incarnation("i");
  reg.mutable_device()->set_key(kKey);
  v1::RegisterResponse response;
  EXPECT_EQ(stub->Register(&context, reg, &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

// Role tokens: the worker token opens only the worker calls, the client token only the client
// calls (the summary included).
TEST(RoleTokenTest, EachRoleTokenOpensOnlyItsOwnCalls) {
  TrackerServerOptions options;
  options.worker_token = "worker-secret";
  options.client_token = "client-secret";
  options.core.known_keys = {kKey};
  auto tracker = TrackerServer::Start(options);
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  auto stub = v1::Tracker::NewStub(
      grpc::CreateChannel((*tracker)->address(), grpc::InsecureChannelCredentials()));
  auto register_with = [&](const std::string& token) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", token));
    v1::RegisterRequest reg;
    reg.set_worker_id("w");
    reg.set_incarnation("i");
    reg.mutable_device()->set_key(kKey);
    v1::RegisterResponse response;
    return stub->Register(&context, reg, &response).error_code();
  };
  EXPECT_EQ(register_with("client-secret"), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(register_with("worker-secret"), grpc::StatusCode::OK);
  const std::string vadd = KernelBytes("vadd");
  auto submit_with = [&](const std::string& token) {
    auto client = TrackerClient::Connect({.address = (*tracker)->address(), .token = token});
    EXPECT_TRUE(client.ok());
    return (*client)->Submit("j", kKey, 0, {VaddRequest("a", vadd, vadd)}).status().code();
  };
  EXPECT_EQ(submit_with("worker-secret"), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(submit_with("client-secret"), absl::StatusCode::kOk);
  for (const std::string token : {"worker-secret", "client-secret", ""}) {
    auto client = TrackerClient::Connect({.address = (*tracker)->address(), .token = token});
    ASSERT_TRUE(client.ok());
    EXPECT_EQ((*client)->Summary().status().code(),
              token == "client-secret" ? absl::StatusCode::kOk : absl::StatusCode::kUnauthenticated)
        << token;
  }
}

TEST_F(BadRequestTest, UnknownDeviceKey_NotFound) {
  const std::string vadd = KernelBytes("vadd");
  auto r = Client(kToken)->Submit("j", "gpu-nope", 0, {VaddRequest("a", vadd, vadd)});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("gpu-nope"), std::string::npos);
}

TEST_F(BadRequestTest, OversizedRequest_ResourceExhausted) {
  std::string huge(2 << 20, 'x');
  v1::MeasureRequest r = VaddRequest("big", huge, huge);
  auto s = Client(kToken)->Submit("j", kKey, 0, {r});
  EXPECT_EQ(s.status().code(), absl::StatusCode::kResourceExhausted) << s.status();
}

// An oversized request is an error at once, not back-pressure to wait out until the batch's
// timeout; a full queue is back-pressure.
TEST_F(BadRequestTest, OversizedRequestInBatch_ErrorNotBackPressure) {
  std::string huge(2 << 20, 'x');
  auto s = Client(kToken)->MeasureBatch("j", kKey, 0, {VaddRequest("big", huge, huge)},
                                        absl::Seconds(30));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kResourceExhausted) << s.status();
  EXPECT_FALSE(IsBackPressure(s.status()));
}

TEST(BackPressureTest, QueueFull_MarkedAsBackPressure) {
  TrackerServerOptions options;
  options.core.known_keys = {kKey};
  options.core.max_queue_per_key = 1;
  auto tracker = TrackerServer::Start(options);
  ASSERT_TRUE(tracker.ok());
  auto client = TrackerClient::Connect({.address = (*tracker)->address()});
  ASSERT_TRUE(client.ok());
  const std::string vadd = KernelBytes("vadd");
  ASSERT_TRUE((*client)->Submit("j", kKey, 0, {VaddRequest("a", vadd, vadd)}).ok());
  auto full = (*client)->Submit("j", kKey, 0, {VaddRequest("b", vadd, vadd)});
  EXPECT_EQ(full.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(IsBackPressure(full.status())) << full.status();
}

TEST_F(BadRequestTest, MalformedRequest_InvalidArgument) {
  v1::MeasureRequest r;  // no id, no artifact
  EXPECT_EQ(Client(kToken)->Submit("j", kKey, 0, {r}).status().code(),
            absl::StatusCode::kInvalidArgument);
  v1::MeasureRequest bad_hash = VaddRequest("h", "abc", "abc");
  bad_hash.mutable_artifact()->set_hash("0123");
  EXPECT_EQ(Client(kToken)->Submit("j", kKey, 0, {bad_hash}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(BadRequestTest, GarbageBytes_ClearError) {
  auto channel = grpc::CreateChannel(tracker_->address(), grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", kToken));
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  const char garbage[] = "\xff\xff\xff\xff\x0f not a protobuf";
  grpc::Slice slice(garbage, sizeof(garbage));
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::Status status;
  bool done = false;
  absl::Mutex mu;
  stub.UnaryCall(&context, "/tunefarm.v1.Tracker/Submit", grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) {
                   absl::MutexLock lock(&mu);
                   status = s;
                   done = true;
                 });
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(&done));
  // gRPC rejects bytes that do not parse as the method's request before the tracker sees them.
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL) << status.error_message();
}

}  // namespace
}  // namespace tunefarm
