// TrackerCore with a FakeClock: registration, leases, re-queue, de-duplication, priorities,
// fair share, back-pressure and the noise gate, without any network.
#include "tracker/tracker_core.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "common/content_hash.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

constexpr char kKey[] = "cpu-test";

class TrackerCoreTest : public ::testing::Test {
 protected:
  TrackerCoreTest() : core_(Options(), &clock_) {}
  static TrackerOptions Options() {
    TrackerOptions o;
    o.heartbeat_timeout = absl::Seconds(10);
    o.lease_grace = absl::Seconds(5);
    o.max_queue_per_key = 10;
    o.max_attempts = 2;
    o.noise_threshold = 0.1;
    return o;
  }

  // Registers `id`, presenting the session key it holds (if any), and keeps the new key.
  absl::Status TryRegister(const std::string& id, const std::string& incarnation = "i1",
                           const std::string& key = "") {
    v1::RegisterRequest r;
    r.set_worker_id(id);
    r.set_incarnation(incarnation);
    r.set_session_key(key);
    r.mutable_device()->set_key(kKey);
    auto response = core_.Register(r);
    if (!response.ok()) return response.status();
    EXPECT_EQ(response->session_key().size(), 32u);
    // Workers may skip heartbeats while they poll (older trackers leave this false).
    EXPECT_TRUE(response->polls_count_as_heartbeats());
    keys_[id] = response->session_key();
    return absl::OkStatus();
  }
  void Register(const std::string& id, const std::string& incarnation = "i1") {
    ASSERT_TRUE(TryRegister(id, incarnation).ok());
  }

  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(const std::string& id, double noise_cv = 0,
                                                  const std::string& incarnation = "i1") {
    v1::HeartbeatRequest hb;
    hb.set_worker_id(id);
    hb.set_incarnation(incarnation);
    hb.set_session_key(keys_[id]);
    hb.set_noise_cv(noise_cv);
    return core_.Heartbeat(hb);
  }

  static v1::MeasureRequest Request(const std::string& id) {
    v1::MeasureRequest r;
    r.set_request_id(id);
    r.set_kernel_name("kernel");
    r.mutable_artifact()->set_content("bytes-" + id);
    r.mutable_artifact()->set_hash(ContentHash("bytes-" + id));
    r.set_timeout_ms(1000);
    return r;
  }

  absl::StatusOr<v1::SubmitResponse> Submit(const std::string& job, int priority,
                                            std::vector<std::string> ids) {
    v1::SubmitRequest s;
    s.set_job_id(job);
    s.set_device_key(kKey);
    s.set_priority(priority);
    for (const std::string& id : ids) *s.add_requests() = Request(id);
    return core_.Submit(s);
  }

  absl::StatusOr<v1::LeaseResponse> Lease(const std::string& worker, int max_tasks,
                                          std::vector<std::string> done = {},
                                          const std::string& incarnation = "i1") {
    v1::LeaseRequest l;
    l.set_worker_id(worker);
    l.set_incarnation(incarnation);
    l.set_session_key(keys_[worker]);
    l.set_max_tasks(max_tasks);
    for (const std::string& id : done) {
      v1::MeasureResult* r = l.add_results();
      r->set_request_id(id);
      r->add_costs_s(1e-3);
    }
    return core_.Lease(l);
  }

  // w1 and w2 register, job "j" submits "a" and w1 leases it; then w1 falls silent and is
  // lost, and w2 leases "a". Returns w2's lease.
  absl::StatusOr<v1::LeaseResponse> LeaseToW1ThenLoseItToW2() {
    Register("w1");
    Register("w2");
    EXPECT_TRUE(Submit("j", 0, {"a"}).ok());
    EXPECT_EQ(Lease("w1", 1)->tasks_size(), 1);
    clock_.Advance(absl::Seconds(11));
    EXPECT_TRUE(Heartbeat("w2").ok());
    core_.CheckLiveness();
    return Lease("w2", 1);
  }

  // Ids of the job's unacknowledged results, after acknowledging `ack`.
  std::vector<std::string> Fetch(const std::string& job, const std::vector<std::string>& ack = {}) {
    v1::FetchResultsRequest f;
    f.set_job_id(job);
    for (const std::string& id : ack) f.add_ack(id);
    std::vector<std::string> ids;
    auto response = core_.FetchResults(f);
    EXPECT_TRUE(response.ok()) << response.status();
    if (!response.ok()) return ids;
    for (const auto& r : response->results()) ids.push_back(r.request_id());
    return ids;
  }

  FakeClock clock_;
  TrackerCore core_;
  // The session key each worker id holds.
  std::map<std::string, std::string> keys_;
};

// Long polls wait on the injected clock: a lease with nothing to hand out returns once the fake
// time passes its deadline, and so does a fetch of a job whose results are pending.
TEST_F(TrackerCoreTest, LongPolls_EndWhenInjectedClockPassesDeadline) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  ASSERT_EQ(Lease("w1", 1)->tasks_size(), 1);  // "a" is pending; the queue is empty
  std::atomic<int> returned{0};
  absl::StatusOr<v1::LeaseResponse> lease;
  absl::StatusOr<v1::FetchResultsResponse> fetch;
  std::thread lease_poll([&] {
    v1::LeaseRequest l;
    l.set_worker_id("w1");
    l.set_incarnation("i1");
    l.set_session_key(keys_["w1"]);
    l.set_max_tasks(1);
    l.set_wait_ms(30000);
    lease = core_.Lease(l);
    ++returned;
  });
  std::thread fetch_poll([&] {
    v1::FetchResultsRequest f;
    f.set_job_id("j");
    f.set_wait_ms(30000);
    fetch = core_.FetchResults(f);
    ++returned;
  });
  // Bounded: 12,000 steps of 31 s fake and 5 ms real (a minute, so a loaded CI machine that is
  // slow to start the threads still fits); both polls end after the first step that follows
  // their start.
  for (int i = 0; i < 12000 && returned.load() < 2; ++i) {
    clock_.Advance(absl::Seconds(31));
    absl::SleepFor(absl::Milliseconds(5));
  }
  lease_poll.join();
  fetch_poll.join();
  ASSERT_TRUE(lease.ok()) << lease.status();
  EXPECT_EQ(lease->tasks_size(), 0);
  ASSERT_TRUE(fetch.ok()) << fetch.status();
  EXPECT_EQ(fetch->results_size(), 0);
}

// A worker waiting in a Lease long poll is connected: it stays alive past the heartbeat
// timeout without heartbeats, one submitted request wakes one of the waiting polls (the
// other keeps waiting), and once its poll is over, silence makes it lost as before.
TEST_F(TrackerCoreTest, LongPoll_WaitingWorkerIsAlive_AndOneRequestWakesOneWaiter) {
  Register("w1");
  Register("w2");
  std::vector<absl::StatusOr<v1::LeaseResponse>> leases(2);
  std::vector<std::thread> polls;
  std::atomic<int> returned{0};
  for (int i = 0; i < 2; ++i) {
    polls.emplace_back([&, i] {
      v1::LeaseRequest l;
      l.set_worker_id(i == 0 ? "w1" : "w2");
      l.set_incarnation("i1");
      l.set_session_key(keys_[l.worker_id()]);
      l.set_max_tasks(1);
      l.set_wait_ms(30000);
      leases[i] = core_.Lease(l);
      ++returned;
    });
  }
  // Bounded: up to 2,000 waits of 5 ms for both threads to be inside their polls.
  for (int i = 0; i < 2000 && core_.WaitingLeases(kKey) < 2; ++i) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_EQ(core_.WaitingLeases(kKey), 2);
  clock_.Advance(absl::Seconds(11));  // past the heartbeat timeout, within the 30 s polls
  core_.CheckLiveness();
  EXPECT_EQ(core_.LiveDevices(kKey), 2);
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  for (int i = 0; i < 2000 && returned.load() < 1; ++i) absl::SleepFor(absl::Milliseconds(5));
  ASSERT_EQ(returned.load(), 1);
  EXPECT_EQ(core_.WaitingLeases(kKey), 1);
  // The other poll ends at its deadline, empty-handed.
  for (int i = 0; i < 2000 && returned.load() < 2; ++i) {
    clock_.Advance(absl::Seconds(20));
    absl::SleepFor(absl::Milliseconds(5));
  }
  for (std::thread& t : polls) t.join();
  int tasks = 0;
  for (const auto& l : leases) {
    ASSERT_TRUE(l.ok()) << l.status();
    tasks += l->tasks_size();
  }
  EXPECT_EQ(tasks, 1);
  // No poll and no heartbeat for longer than the timeout: lost.
  clock_.Advance(absl::Seconds(11));
  core_.CheckLiveness();
  EXPECT_EQ(core_.LiveDevices(kKey), 0);
}

// Build requests (for builder workers) carry a task and no artifact; anything else is refused.
TEST_F(TrackerCoreTest, BuildRequests_ValidatedAndLeasedWithoutArtifact) {
  Register("b1");
  auto submit = [&](const std::string& id, bool with_artifact, bool with_task) {
    v1::SubmitRequest s;
    s.set_job_id("builds");
    s.set_device_key(kKey);
    v1::MeasureRequest* r = s.add_requests();
    r->set_request_id(id);
    r->set_kernel_name("tunefarm_kernel");
    if (with_task) r->mutable_build()->mutable_task()->set_template_name("dense");
    r->mutable_build()->set_config_index(3);
    if (with_artifact) *r->mutable_artifact() = Request(id).artifact();
    return core_.Submit(s);
  };
  EXPECT_EQ(submit("x", true, true).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(submit("y", false, false).status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(submit("z", false, true).ok());
  auto lease = Lease("b1", 1);
  ASSERT_TRUE(lease.ok()) << lease.status();
  ASSERT_EQ(lease->tasks_size(), 1);
  EXPECT_EQ(lease->tasks(0).build().config_index(), 3);
  EXPECT_TRUE(lease->tasks(0).artifact().content().empty());
  EXPECT_TRUE(Lease("b1", 1, {"z"}).ok());
  EXPECT_EQ(Fetch("builds"), std::vector<std::string>({"z"}));
}

TEST_F(TrackerCoreTest, Submit_UnknownKey_NotFound) {
  EXPECT_EQ(Submit("j", 0, {"a"}).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(TrackerCoreTest, LeaseAndReport_OneRequest_OneResult) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  auto lease = Lease("w1", 1);
  ASSERT_TRUE(lease.ok());
  ASSERT_EQ(lease->tasks_size(), 1);
  EXPECT_FALSE(lease->tasks(0).artifact().content().empty());  // first time: bytes sent
  ASSERT_TRUE(Lease("w1", 0, {"a"}).ok());
  EXPECT_EQ(Fetch("j"), std::vector<std::string>{"a"});
  // A duplicate report is dropped: the unacknowledged result is there once.
  ASSERT_TRUE(Lease("w1", 0, {"a"}).ok());
  EXPECT_EQ(Fetch("j"), std::vector<std::string>{"a"});
}

// /metrics and the dashboard: the queue wait of each lease, results by error class, and each
// device's results per second.
TEST_F(TrackerCoreTest, Metrics_DispatchLatencyResultsByClassAndDeviceRate) {
  Register("w1");
  clock_.Advance(absl::Seconds(10));
  ASSERT_TRUE(Submit("j", 0, {"a", "b"}).ok());
  clock_.Advance(absl::Milliseconds(30));
  ASSERT_EQ(Lease("w1", 2)->tasks_size(), 2);
  Histogram::Snapshot waited = core_.dispatch_latency().Read();
  EXPECT_EQ(waited.count, 2u);
  EXPECT_NEAR(waited.sum, 0.06, 1e-9);
  v1::LeaseRequest report;
  report.set_worker_id("w1");
  report.set_incarnation("i1");
  report.set_session_key(keys_["w1"]);
  report.add_results()->set_request_id("a");
  report.mutable_results(0)->add_costs_s(1e-3);
  report.add_results()->set_request_id("b");
  report.mutable_results(1)->set_error(v1::WRONG_ANSWER);
  ASSERT_TRUE(core_.Lease(report).ok());
  std::map<std::string, double> by_class = core_.results_by_class().Read();
  EXPECT_EQ(by_class["error_none"], 1);
  EXPECT_EQ(by_class["wrong_answer"], 1);
  v1::FarmSummary summary = core_.Summary();
  ASSERT_EQ(summary.device_status_size(), 1);
  // Two results in the 10.03 s since w1 registered.
  EXPECT_NEAR(summary.device_status(0).results_per_second(), 2 / 10.03, 1e-6);
  clock_.Advance(absl::Minutes(2));
  EXPECT_EQ(core_.Summary().device_status(0).results_per_second(), 0);
}

TEST_F(TrackerCoreTest, FetchResults_ReplyLost_SentAgainUntilAcknowledged) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a", "b"}).ok());
  ASSERT_EQ(Lease("w1", 2)->tasks_size(), 2);
  ASSERT_TRUE(Lease("w1", 0, {"a"}).ok());
  EXPECT_EQ(Fetch("j"), std::vector<std::string>{"a"});  // this reply is "lost"
  ASSERT_TRUE(Lease("w1", 0, {"b"}).ok());
  std::vector<std::string> again = Fetch("j");
  std::sort(again.begin(), again.end());
  EXPECT_EQ(again, (std::vector<std::string>{"a", "b"}));
  // Resubmitting a result-holding id neither re-runs it nor loses its result.
  EXPECT_EQ(Submit("j", 0, {"a"})->duplicates(), 1);
  EXPECT_EQ(Fetch("j", {"a"}), std::vector<std::string>{"b"});
  EXPECT_EQ(core_.jobs(), 1);
  EXPECT_TRUE(Fetch("j", {"b"}).empty());
  // Finished and acknowledged: forgotten.
  EXPECT_EQ(core_.jobs(), 0);
  v1::FetchResultsRequest f;
  f.set_job_id("j");
  EXPECT_EQ(core_.FetchResults(f).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(TrackerCoreTest, Incarnation_InEveryReply_NewPerCore) {
  Register("w1");
  auto submitted = Submit("j", 0, {"a"});
  ASSERT_TRUE(submitted.ok());
  EXPECT_EQ(submitted->tracker_incarnation(), core_.incarnation());
  v1::FetchResultsRequest f;
  f.set_job_id("j");
  EXPECT_EQ(core_.FetchResults(f)->tracker_incarnation(), core_.incarnation());
  TrackerCore restarted(Options(), &clock_);
  EXPECT_NE(restarted.incarnation(), core_.incarnation());
}

TEST(TrackerCoreLimits, FinishedIds_OldestForgotten) {
  FakeClock clock;
  TrackerOptions options;
  options.max_finished_ids = 2;
  options.known_keys = {"k"};
  TrackerCore core(options, &clock);
  v1::RegisterRequest reg;
  reg.set_worker_id("w");
  reg.set_incarnation("i");
  reg.mutable_device()->set_key("k");
  auto registered = core.Register(reg);
  ASSERT_TRUE(registered.ok());
  const std::string key = registered->session_key();
  auto run = [&](const std::string& id) {
    v1::SubmitRequest s;
    s.set_job_id("j");
    s.set_device_key("k");
    v1::MeasureRequest* r = s.add_requests();
    r->set_request_id(id);
    r->set_kernel_name("kernel");
    r->mutable_artifact()->set_content("bytes");
    r->mutable_artifact()->set_hash(ContentHash("bytes"));
    auto submitted = core.Submit(s);
    EXPECT_TRUE(submitted.ok()) << submitted.status();
    return submitted.ok() ? submitted->accepted() : -1;
  };
  auto finish = [&](const std::string& id) {
    v1::LeaseRequest l;
    l.set_worker_id("w");
    l.set_incarnation("i");
    l.set_session_key(key);
    l.set_max_tasks(1);
    ASSERT_EQ(core.Lease(l)->tasks_size(), 1);
    v1::LeaseRequest report;
    report.set_worker_id("w");
    report.set_incarnation("i");
    report.set_session_key(key);
    report.add_results()->set_request_id(id);
    ASSERT_TRUE(core.Lease(report).ok());
  };
  for (const std::string id : {"a", "b", "c"}) {
    ASSERT_EQ(run(id), 1);
    finish(id);
  }
  EXPECT_EQ(run("c"), 0);  // remembered
  EXPECT_EQ(run("a"), 1);  // forgotten: the cap holds the two newest
}

TEST_F(TrackerCoreTest, Submit_SameIdTwice_Duplicate) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  auto again = Submit("j", 0, {"a"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->accepted(), 0);
  EXPECT_EQ(again->duplicates(), 1);
}

TEST_F(TrackerCoreTest, Submit_QueueFull_ResourceExhausted) {
  Register("w1");
  std::vector<std::string> ids;
  for (int i = 0; i < 11; ++i) ids.push_back("r" + std::to_string(i));
  EXPECT_EQ(Submit("j", 0, ids).status().code(), absl::StatusCode::kResourceExhausted);
  ids.pop_back();
  EXPECT_TRUE(Submit("j", 0, ids).ok());
}

TEST_F(TrackerCoreTest, Submit_HashMismatch_InvalidArgument) {
  Register("w1");
  v1::SubmitRequest s;
  s.set_job_id("j");
  s.set_device_key(kKey);
  v1::MeasureRequest r = Request("a");
  r.mutable_artifact()->set_hash("00");
  *s.add_requests() = r;
  EXPECT_EQ(core_.Submit(s).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(TrackerCoreTest, Submit_PackedArgumentNotAnInput_InvalidArgument) {
  Register("w1");
  v1::SubmitRequest s;
  s.set_job_id("j");
  s.set_device_key(kKey);
  v1::MeasureRequest r = Request("a");
  v1::TensorArg* out = r.add_tensors();
  out->mutable_spec()->add_shape(4);
  out->set_is_output(true);
  r.add_packed_args()->set_arg_index(0);  // The output.
  *s.add_requests() = r;
  absl::StatusOr<v1::SubmitResponse> got = core_.Submit(s);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find("packed argument 0"), std::string::npos) << got.status();
  s.mutable_requests(0)->mutable_packed_args(0)->set_arg_index(7);  // Past the tensors.
  EXPECT_EQ(core_.Submit(s).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(TrackerCoreTest, CheckLiveness_SilentWorker_RequeuedToOther) {
  auto lease = LeaseToW1ThenLoseItToW2();
  ASSERT_EQ(lease->tasks_size(), 1);
  EXPECT_EQ(lease->tasks(0).request_id(), "a");
  // The lost worker is told to register again.
  EXPECT_EQ(Lease("w1", 1).status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(Lease("w2", 0, {"a"}).ok());
  EXPECT_EQ(Fetch("j").size(), 1u);
}

TEST_F(TrackerCoreTest, CheckLiveness_LeaseExpires_LateResultStillCountsOnce) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  ASSERT_EQ(Lease("w1", 1)->tasks_size(), 1);
  clock_.Advance(absl::Seconds(7));  // past timeout 1 s + grace 5 s
  ASSERT_TRUE(Heartbeat("w1").ok());
  core_.CheckLiveness();
  ASSERT_TRUE(Lease("w1", 0, {"a"}).ok());  // the late result arrives
  EXPECT_EQ(Fetch("j").size(), 1u);
  EXPECT_EQ(Lease("w1", 1)->tasks_size(), 0);  // nothing left to lease
}

TEST_F(TrackerCoreTest, Requeue_TooManyAttempts_DeviceLost) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(Lease("w1", 1)->tasks_size(), 1);
    clock_.Advance(absl::Seconds(7));
    ASSERT_TRUE(Heartbeat("w1").ok());
    core_.CheckLiveness();
  }
  v1::FetchResultsRequest f;
  f.set_job_id("j");
  auto results = core_.FetchResults(f);
  ASSERT_EQ(results->results_size(), 1);
  EXPECT_EQ(results->results(0).error(), v1::DEVICE_LOST);
}

TEST_F(TrackerCoreTest, Register_NewIncarnation_OldAbortedAndWorkRequeued) {
  Register("w1", "i1");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  ASSERT_EQ(Lease("w1", 1)->tasks_size(), 1);
  const std::string old_key = keys_["w1"];
  // The holder of the key may hand the id to a new process of itself.
  ASSERT_TRUE(TryRegister("w1", "i2", old_key).ok());
  EXPECT_NE(keys_["w1"], old_key);
  EXPECT_EQ(Lease("w1", 1, {}, "i1").status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(Heartbeat("w1", 0, "i1").status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(Lease("w1", 1, {}, "i2")->tasks_size(), 1);
}

TEST_F(TrackerCoreTest, Register_LiveIdWithoutItsKey_AlreadyExists) {
  Register("w1", "i1");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  ASSERT_EQ(Lease("w1", 1)->tasks_size(), 1);
  const std::string key = keys_["w1"];
  // Neither a new process nor one claiming the same incarnation takes a live worker's id
  // without its session key; a wrong key is no better.
  EXPECT_EQ(TryRegister("w1", "i2").code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(TryRegister("w1", "i1").code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(TryRegister("w1", "i2", std::string(32, '0')).code(), absl::StatusCode::kAlreadyExists);
  // The holder still works, with its key, and renewing keeps both its key and its lease.
  keys_["w1"] = key;
  ASSERT_TRUE(TryRegister("w1", "i1", key).ok());
  EXPECT_EQ(keys_["w1"], key);
  EXPECT_EQ(core_.Summary().device_status(0).leased(), 1);
  // Once the worker is lost, the id is free; the lost process's key is worth nothing.
  clock_.Advance(absl::Seconds(11));
  core_.CheckLiveness();
  ASSERT_TRUE(TryRegister("w1", "i2").ok());
  EXPECT_NE(keys_["w1"], key);
  EXPECT_EQ(Lease("w1", 1, {}, "i2")->tasks_size(), 1);
}

TEST(TrackerCoreLimits, WorkersAndKeys_Capped) {
  FakeClock clock;
  TrackerOptions options;
  options.max_workers = 2;
  options.max_keys = 2;
  options.known_keys = {"k1"};
  TrackerCore core(options, &clock);
  auto reg = [&](const std::string& id, const std::string& key) {
    v1::RegisterRequest r;
    r.set_worker_id(id);
    r.set_incarnation("i");
    r.mutable_device()->set_key(key);
    return core.Register(r).status().code();
  };
  EXPECT_EQ(reg("a", "k1"), absl::StatusCode::kOk);
  EXPECT_EQ(reg("b", "k2"), absl::StatusCode::kOk);
  EXPECT_EQ(reg("c", "k1"), absl::StatusCode::kResourceExhausted);  // third worker
  EXPECT_EQ(reg("a", "k3"), absl::StatusCode::kAlreadyExists);      // a's id, no key
  clock.Advance(absl::Seconds(11));
  core.CheckLiveness();                                             // a and b lost, not forgotten
  EXPECT_EQ(reg("a", "k3"), absl::StatusCode::kResourceExhausted);  // third key
  EXPECT_EQ(reg("a", "k2"), absl::StatusCode::kOk);                 // a known key, a's old id
}

TEST_F(TrackerCoreTest, WrongSessionKey_PermissionDenied) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  keys_["w1"] = std::string(32, 'f');
  EXPECT_EQ(Lease("w1", 1).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(Heartbeat("w1").status().code(), absl::StatusCode::kPermissionDenied);
  keys_["w1"] = "";
  EXPECT_EQ(Lease("w1", 1).status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(TrackerCoreTest, Result_FromWorkerNeverLeasedIt_Refused) {
  Register("w1");
  Register("w2");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  ASSERT_EQ(Lease("w1", 1)->tasks_size(), 1);
  // w2, a registered worker, forges a result for w1's request.
  ASSERT_TRUE(Lease("w2", 0, {"a"}).ok());
  EXPECT_EQ(core_.Summary().results_refused(), 1);
  EXPECT_EQ(core_.Summary().results_total(), 0);
  // w1's own result counts.
  ASSERT_TRUE(Lease("w1", 0, {"a"}).ok());
  EXPECT_EQ(Fetch("j"), std::vector<std::string>{"a"});
}

TEST_F(TrackerCoreTest, LateResult_PreviousHolderAfterRelease_Accepted) {
  // w1 falls silent and is lost; w2 takes the request over.
  ASSERT_EQ(LeaseToW1ThenLoseItToW2()->tasks_size(), 1);
  // w1 comes back (same process), registers again and reports: its measurement of "a" is
  // real, so the first result wins and w2's later one is a duplicate.
  Register("w1");
  ASSERT_TRUE(Lease("w1", 0, {"a"}).ok());
  ASSERT_TRUE(Lease("w2", 0, {"a"}).ok());
  EXPECT_EQ(Fetch("j"), std::vector<std::string>{"a"});
  EXPECT_EQ(core_.Summary().results_refused(), 0);
  EXPECT_EQ(core_.Summary().results_total(), 1);
}

TEST_F(TrackerCoreTest, FetchArtifact_OnlyOfOwnLeases) {
  Register("w1");
  Register("w2");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  auto lease = Lease("w1", 1);
  ASSERT_EQ(lease->tasks_size(), 1);
  v1::FetchArtifactRequest fetch;
  fetch.set_worker_id("w2");
  fetch.set_incarnation("i1");
  fetch.set_session_key(keys_["w2"]);
  fetch.set_hash(lease->tasks(0).artifact().hash());
  EXPECT_EQ(core_.FetchArtifact(fetch).status().code(), absl::StatusCode::kNotFound);
  fetch.set_worker_id("w1");
  fetch.set_session_key(keys_["w1"]);
  EXPECT_TRUE(core_.FetchArtifact(fetch).ok());
}

TEST_F(TrackerCoreTest, Lease_Priorities_HigherFirstThenRoundRobin) {
  Register("w1");
  ASSERT_TRUE(Submit("low", 0, {"l1", "l2"}).ok());
  ASSERT_TRUE(Submit("a", 5, {"a1", "a2", "a3"}).ok());
  ASSERT_TRUE(Submit("b", 5, {"b1", "b2", "b3"}).ok());
  std::vector<std::string> order;
  for (int i = 0; i < 8; ++i) {
    auto lease = Lease("w1", 1);
    ASSERT_EQ(lease->tasks_size(), 1);
    order.push_back(lease->tasks(0).request_id());
  }
  // The two priority-5 jobs alternate; the low-priority job comes last.
  EXPECT_EQ(order[6], "l1");
  EXPECT_EQ(order[7], "l2");
  int a_in_first4 = 0;
  for (int i = 0; i < 4; ++i) a_in_first4 += order[i][0] == 'a';
  EXPECT_EQ(a_in_first4, 2);
}

TEST_F(TrackerCoreTest, Heartbeat_Noisy_NoWorkUntilRecovered) {
  Register("w1");
  Register("w2");
  ASSERT_TRUE(Submit("j", 0, {"a"}).ok());
  EXPECT_TRUE(Heartbeat("w1", 0.5)->noisy());
  EXPECT_TRUE(Heartbeat("w2", 0.01).ok());
  // w2 is quiet: w1 is parked.
  EXPECT_EQ(Lease("w1", 1)->tasks_size(), 0);
  EXPECT_EQ(core_.Summary().device_status(0).state(), v1::DEVICE_STATE_NOISY);
  EXPECT_FALSE(Heartbeat("w1", 0.01)->noisy());
  EXPECT_EQ(Lease("w1", 1)->tasks_size(), 1);
}

// When every live device of a key is noisy, they measure anyway: a farm whose only device is
// busy (or a loaded CI machine) slows down instead of starving its queue. The gate comes back
// as soon as one device of the key is quiet, and when the quiet one is lost it goes again.
TEST_F(TrackerCoreTest, Noisy_AllDevicesNoisy_MeasureAnyway) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a", "b", "c"}).ok());
  EXPECT_TRUE(Heartbeat("w1", 0.5)->noisy());
  EXPECT_EQ(Lease("w1", 1)->tasks_size(), 1);  // the only device
  Register("w2");
  EXPECT_TRUE(Heartbeat("w2", 0.01).ok());
  EXPECT_EQ(Lease("w1", 1, {"a"})->tasks_size(), 0);  // parked: w2 is quiet
  EXPECT_EQ(Lease("w2", 1)->tasks_size(), 1);
  // w2 falls silent and is lost: w1 is the key's only live device again.
  clock_.Advance(absl::Seconds(11));
  EXPECT_TRUE(Heartbeat("w1", 0.5).ok());
  core_.CheckLiveness();
  EXPECT_GE(Lease("w1", 1)->tasks_size(), 1);
}

TEST_F(TrackerCoreTest, Lease_ArtifactSentOncePerWorker) {
  Register("w1");
  v1::SubmitRequest s;
  s.set_job_id("j");
  s.set_device_key(kKey);
  for (const char* id : {"a", "b"}) {
    v1::MeasureRequest r = Request("shared");
    r.set_request_id(id);
    *s.add_requests() = r;
  }
  ASSERT_TRUE(core_.Submit(s).ok());
  auto first = Lease("w1", 1);
  auto second = Lease("w1", 1, {first->tasks(0).request_id()});
  EXPECT_FALSE(first->tasks(0).artifact().content().empty());
  EXPECT_TRUE(second->tasks(0).artifact().content().empty());
  v1::FetchArtifactRequest fetch;
  fetch.set_worker_id("w1");
  fetch.set_incarnation("i1");
  fetch.set_session_key(keys_["w1"]);
  fetch.set_hash(second->tasks(0).artifact().hash());
  EXPECT_TRUE(core_.FetchArtifact(fetch).ok());
}

TEST_F(TrackerCoreTest, Cancel_UnacknowledgedResults_JobForgotten) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a", "b"}).ok());
  ASSERT_EQ(Lease("w1", 2)->tasks_size(), 2);
  ASSERT_TRUE(Lease("w1", 0, {"a"}).ok());
  EXPECT_EQ(Fetch("j"), std::vector<std::string>{"a"});  // never acknowledged
  v1::CancelRequest c;
  c.set_job_id("j");
  EXPECT_EQ(core_.Cancel(c)->cancelled(), 1);
  EXPECT_EQ(core_.jobs(), 0);
  ASSERT_TRUE(Lease("w1", 0, {"b"}).ok());  // a late result of the cancelled job
  EXPECT_EQ(core_.jobs(), 0);
  EXPECT_TRUE(core_.Drained());
}

TEST_F(TrackerCoreTest, CheckLiveness_IdleFinishedJob_Forgotten) {
  Register("w1");
  ASSERT_TRUE(Submit("done", 0, {"a"}).ok());
  ASSERT_TRUE(Submit("busy", 0, {"b", "c"}).ok());
  ASSERT_EQ(Lease("w1", 2)->tasks_size(), 2);
  ASSERT_TRUE(Lease("w1", 0, {"a", "b"}).ok());  // "done" finished; its client never fetches
  clock_.Advance(absl::Minutes(11));
  ASSERT_TRUE(Heartbeat("w1").ok());
  core_.CheckLiveness();
  // "done" is gone with its unacknowledged result; "busy" still has "c" leased (re-queued:
  // the lease expired too) and stays.
  EXPECT_EQ(core_.jobs(), 1);
  v1::FetchResultsRequest f;
  f.set_job_id("done");
  EXPECT_EQ(core_.FetchResults(f).status().code(), absl::StatusCode::kNotFound);
  f.set_job_id("busy");
  EXPECT_TRUE(core_.FetchResults(f).ok());
}

TEST_F(TrackerCoreTest, Cancel_QueuedWork_Dropped) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a", "b"}).ok());
  v1::CancelRequest c;
  c.set_job_id("j");
  EXPECT_EQ(core_.Cancel(c)->cancelled(), 2);
  EXPECT_EQ(Lease("w1", 1)->tasks_size(), 0);
  EXPECT_TRUE(core_.Drained());
}

TEST_F(TrackerCoreTest, Summary_AfterWork_CountsAndStates) {
  Register("w1");
  ASSERT_TRUE(Submit("j", 0, {"a", "b"}).ok());
  ASSERT_EQ(Lease("w1", 1)->tasks_size(), 1);
  v1::FarmSummary s = core_.Summary();
  ASSERT_EQ(s.device_status_size(), 1);
  EXPECT_EQ(s.device_status(0).state(), v1::DEVICE_STATE_BUSY);
  ASSERT_EQ(s.queues_size(), 1);
  EXPECT_EQ(s.queues(0).queued(), 1);
  EXPECT_EQ(s.queues(0).leased(), 1);
  EXPECT_EQ(core_.LiveDevices(kKey), 1);
}

}  // namespace
}  // namespace tunefarm

namespace tunefarm {
namespace {

class AvoidWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override { core_ = std::make_unique<TrackerCore>(TrackerOptions(), &clock_); }
  void Register(const std::string& id) {
    v1::RegisterRequest r;
    r.set_worker_id(id);
    r.set_incarnation("i1");
    r.mutable_device()->set_key("cpu-test");
    auto response = core_->Register(r);
    ASSERT_TRUE(response.ok());
    keys_[id] = response->session_key();
  }
  void SubmitAvoiding(const std::string& id, const std::string& avoid) {
    v1::SubmitRequest s;
    s.set_job_id("j");
    s.set_device_key("cpu-test");
    v1::MeasureRequest* r = s.add_requests();
    r->set_request_id(id);
    r->set_kernel_name("kernel");
    r->mutable_artifact()->set_content("bytes");
    r->mutable_artifact()->set_hash(ContentHash("bytes"));
    r->set_avoid_worker_id(avoid);
    ASSERT_TRUE(core_->Submit(s).ok());
  }
  int LeaseCount(const std::string& worker) {
    v1::LeaseRequest l;
    l.set_worker_id(worker);
    l.set_incarnation("i1");
    l.set_session_key(keys_[worker]);
    l.set_max_tasks(4);
    auto r = core_->Lease(l);
    return r.ok() ? r->tasks_size() : -1;
  }

  FakeClock clock_;
  std::unique_ptr<TrackerCore> core_;
  std::map<std::string, std::string> keys_;
};

TEST_F(AvoidWorkerTest, AvoidedWorker_GetsNothing_OtherWorkerTakesIt) {
  Register("w1");
  Register("w2");
  SubmitAvoiding("a", "w1");
  EXPECT_EQ(LeaseCount("w1"), 0);
  EXPECT_EQ(LeaseCount("w2"), 1);
}

TEST_F(AvoidWorkerTest, OnlyWorker_TakesAvoidedRequestAnyway) {
  Register("w1");
  SubmitAvoiding("a", "w1");
  EXPECT_EQ(LeaseCount("w1"), 1);
}

}  // namespace
}  // namespace tunefarm
