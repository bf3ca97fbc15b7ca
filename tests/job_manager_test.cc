// The job service in process: a two-task job shares its budget through the task scheduler on
// the embedded local farm and lands in the tuning log; a task new to the log gets its warm-up
// before resumed ones get more; QueryBest answers over gRPC from it.
// Bounds on what a job may ask for; a job interrupted by the service's shutdown resumes in a
// new manager over the same store and finishes with every trial in the log exactly once. A
// program of the tensor-expression language goes the same way over gRPC.
#include "tuner/service/job_manager.h"

#include <grpcpp/grpcpp.h>

#include "absl/strings/match.h"
#include "compiler/codegen/target.h"
#include "db/job_store.h"
#include "db/tuning_log.h"
#include "farm/farm_setup.h"
#include "gtest/gtest.h"
#include "proto/job.grpc.pb.h"
#include "tuner/export/export_library.h"
#include "tuner/generated/program_template.h"
#include "tuner/service/job_service.h"
#include "tuner/tuning/strategy_factory.h"

namespace tunefarm::tuner {
namespace {

// The job's status once it has ended, or after at most 10 minutes (typically seconds).
v1::JobStatus WaitUntilFinished(JobManager& manager, const std::string& id) {
  v1::JobStatus status;
  int64_t version = 0;
  for (int i = 0; i < 600; ++i) {
    auto s = manager.WaitForChange(id, version, absl::Seconds(1));
    if (!s.ok()) break;
    status = *s;
    version = status.version();
    if (JobManager::IsTerminal(status.state())) break;
  }
  return status;
}

TEST(JobManager, TwoTaskJob_SharesBudget_RecordsAndQueryBest) {
  FarmSetupOptions fo;
  fo.key = "cpu-test";
  fo.num_workers = 1;
  auto farm = StartFarm(fo);
  ASSERT_TRUE(farm.ok()) << farm.status();
  std::string db_path = ::testing::TempDir() + "/job_manager.db";
  std::remove(db_path.c_str());
  auto log = db::TuningLog::Open(db_path);
  ASSERT_TRUE(log.ok());

  JobManagerOptions mo;
  mo.client = (*farm)->client.get();
  mo.log = log->get();
  mo.make_strategy = MakeStrategy;
  mo.default_device_key = "cpu-test";
  mo.timing.set_repeat(2);
  mo.timing.set_min_repeat_ms(1);
  JobManager manager(mo);

  v1::JobSpec spec;
  v1::TaskSpec* dense = spec.add_tasks();
  dense->set_template_name("dense");
  for (int v : {16, 32, 16}) dense->add_args(v);
  // The dense operator runs 1000 times per inference: after both warm-up rounds it is worth far
  // more than the small elementwise one (weight × cost dominates any rate of improvement the
  // latter can show), so it must get most of the budget.
  dense->set_weight(1000);
  v1::TaskSpec* relu = spec.add_tasks();
  relu->set_template_name("bias_relu");
  for (int v : {8, 32}) relu->add_args(v);
  spec.set_trials(24);
  spec.set_batch_size(4);
  spec.set_strategy("random");
  spec.set_top_k(2);
  spec.set_top_k_rounds(2);
  auto id = manager.Submit(spec);
  ASSERT_TRUE(id.ok()) << id.status();

  v1::JobStatus status = WaitUntilFinished(manager, *id);
  ASSERT_EQ(status.state(), v1::JOB_SUCCEEDED) << status.error();
  ASSERT_EQ(status.tasks_size(), 2);
  EXPECT_GE(status.trials_done(), 24);
  EXPECT_GT(status.tasks(0).trials_done(), 0);
  EXPECT_GT(status.tasks(1).trials_done(), 0);
  EXPECT_GT(status.tasks(0).trials_done(), status.tasks(1).trials_done());
  EXPECT_GT(status.tasks(0).best_gflops(), 0);
  EXPECT_GT(status.tasks(1).best_gflops(), 0);
  EXPECT_GE(*(*log)->CountRecords(), 24);
  // Where each task's time went: both were built, measured and logged, within the job's time
  // (which counts the re-measurements of the fastest configs).
  for (const v1::TaskStatus& t : status.tasks()) {
    EXPECT_GT(t.time().build_s(), 0) << t.DebugString();
    EXPECT_GT(t.time().measure_s(), 0) << t.DebugString();
    EXPECT_GT(t.time().record_s(), 0) << t.DebugString();
    EXPECT_GE(t.time().search_s(), 0) << t.DebugString();
    EXPECT_LE(t.time().search_s() + t.time().build_s() + t.time().measure_s() + t.time().record_s(),
              status.elapsed_s() + 1e-3)
        << t.DebugString();
  }

  // Again, with a third task the log has nothing for and room for one more round only: the
  // resumed tasks' records stand for their warm-up, so the new task gets the round (before,
  // the first task's warm-up took it and the new one was never measured).
  const int64_t resumed = *(*log)->CountRecords();
  v1::JobSpec again = spec;
  v1::TaskSpec* wide = again.add_tasks();
  wide->set_template_name("bias_relu");
  for (int v : {8, 64}) wide->add_args(v);
  again.set_trials(static_cast<int32_t>(resumed) + 4);
  auto id2 = manager.Submit(again);
  ASSERT_TRUE(id2.ok()) << id2.status();
  v1::JobStatus status2 = WaitUntilFinished(manager, *id2);
  ASSERT_EQ(status2.state(), v1::JOB_SUCCEEDED) << status2.error();
  ASSERT_EQ(status2.tasks_size(), 3);
  EXPECT_EQ(status2.tasks(2).trials_done(), 4);
  // The resumed tasks count their records (the first job's top-k re-measurements included)
  // and measured nothing new.
  EXPECT_EQ(status2.tasks(0).trials_done() + status2.tasks(1).trials_done(), resumed);

  auto server = JobServer::Start(&manager, log->get(), {});
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::JobService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string((*server)->port()), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  v1::QueryBestRequest q;
  q.mutable_workload()->set_template_name("dense");
  q.mutable_workload()->set_args("[16,32,16,\"float32\"]");
  auto target = codegen::ParseTarget("llvm");
  q.set_target(target->str);
  q.set_k(3);
  v1::QueryBestResponse best;
  grpc::Status st = stub->QueryBest(&ctx, q, &best);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_GE(best.best_size(), 1);
  EXPECT_GT(best.best(0).gflops(), 0);

  grpc::ClientContext ctx2;
  v1::JobRequest missing;
  missing.set_job_id("job-404");
  v1::JobStatus ignored;
  EXPECT_EQ(stub->GetJob(&ctx2, missing, &ignored).error_code(), grpc::StatusCode::NOT_FOUND);
}

// A local farm, a client and a fresh tuning log (with the job store in the same file).
class JobManagerFarmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FarmSetupOptions fo;
    fo.key = "cpu-test";
    fo.num_workers = 1;
    auto farm = StartFarm(fo);
    ASSERT_TRUE(farm.ok()) << farm.status();
    farm_ = std::move(*farm);
    path_ = ::testing::TempDir() + "/" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db";
    std::remove(path_.c_str());
    auto log = db::TuningLog::Open(path_);
    ASSERT_TRUE(log.ok()) << log.status();
    log_ = std::move(*log);
    auto store = db::JobStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }
  JobManagerOptions Options() {
    JobManagerOptions mo;
    mo.client = farm_->client.get();
    mo.log = log_.get();
    mo.store = store_.get();
    mo.make_strategy = MakeStrategy;
    mo.default_device_key = "cpu-test";
    mo.timing.set_repeat(1);
    mo.timing.set_min_repeat_ms(1);
    return mo;
  }
  static v1::JobSpec DenseSpec(int trials, int m = 16) {
    v1::JobSpec spec;
    v1::TaskSpec* dense = spec.add_tasks();
    dense->set_template_name("dense");
    for (int v : {m, 32, 16}) dense->add_args(v);
    spec.set_trials(trials);
    spec.set_batch_size(4);
    spec.set_strategy("random");
    spec.set_top_k(-1);
    return spec;
  }
  // Waits (bounded) until `pred` holds for the job's status; returns the last status.
  static v1::JobStatus WaitFor(JobManager& manager, const std::string& id,
                               const std::function<bool(const v1::JobStatus&)>& pred) {
    v1::JobStatus status;
    for (int i = 0; i < 600; ++i) {  // at most 10 minutes; typically seconds
      auto s = manager.WaitForChange(id, status.version(), absl::Seconds(1));
      EXPECT_TRUE(s.ok()) << s.status();
      if (!s.ok()) break;
      status = *s;
      if (pred(status) || JobManager::IsTerminal(status.state())) break;
    }
    return status;
  }

  std::unique_ptr<Farm> farm_;
  std::string path_;
  std::unique_ptr<db::TuningLog> log_;
  std::unique_ptr<db::JobStore> store_;
};

TEST_F(JobManagerFarmTest, Bounds_TooManyTasksTrialsOrJobs_Refused) {
  JobManagerOptions mo = Options();
  mo.max_tasks_per_job = 2;
  mo.max_trials = 100;
  mo.max_active_jobs = 1;
  mo.max_kept_jobs = 1;
  JobManager manager(mo);
  v1::JobSpec three = DenseSpec(8);
  *three.add_tasks() = three.tasks(0);
  *three.add_tasks() = three.tasks(0);
  EXPECT_EQ(manager.Submit(three).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(manager.Submit(DenseSpec(101)).status().code(), absl::StatusCode::kInvalidArgument);
  v1::JobSpec bad_weight = DenseSpec(8);
  bad_weight.mutable_tasks(0)->set_weight(-1);
  EXPECT_EQ(manager.Submit(bad_weight).status().code(), absl::StatusCode::kInvalidArgument);
  for (int rounds : {-1, 11}) {
    v1::JobSpec bad_rounds = DenseSpec(8);
    bad_rounds.set_top_k_rounds(rounds);
    EXPECT_EQ(manager.Submit(bad_rounds).status().code(), absl::StatusCode::kInvalidArgument)
        << rounds;
  }
  auto first = manager.Submit(DenseSpec(8));
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = manager.Submit(DenseSpec(8, 32));
  if (!second.ok()) {
    EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted) << second.status();
  }
  EXPECT_EQ(WaitFor(manager, *first, [](const auto&) { return false; }).state(), v1::JOB_SUCCEEDED);
  if (second.ok()) {  // the first had ended already: wait for this one instead
    EXPECT_EQ(WaitFor(manager, *second, [](const auto&) { return false; }).state(),
              v1::JOB_SUCCEEDED);
  }
  // Two more finished jobs with max_kept_jobs 1: the oldest ones are forgotten, in memory and in
  // the store, and their threads joined.
  for (int m : {48, 64}) {
    absl::StatusOr<std::string> id;
    for (int attempt = 0; attempt < 100; ++attempt) {  // the previous job may still be ending
      id = manager.Submit(DenseSpec(4, m));
      if (!absl::IsResourceExhausted(id.status())) break;
      absl::SleepFor(absl::Milliseconds(100));
    }
    ASSERT_TRUE(id.ok()) << id.status();
    EXPECT_EQ(WaitFor(manager, *id, [](const auto&) { return false; }).state(), v1::JOB_SUCCEEDED);
  }
  EXPECT_LE(manager.List().size(), 2u);
  EXPECT_EQ(manager.Get(*first).status().code(), absl::StatusCode::kNotFound);
  EXPECT_LE(store_->Load()->size(), 2u);
}

// How the caches stand at each timed run: a model's job is timed cold unless it says otherwise
// (its layers run inside a network), an operator's job as the service is set (warm here), and
// every record says which it was, the worker's word.
TEST_F(JobManagerFarmTest, TimingCache_ModelJobsColdByDefault_RecordsSayWhich) {
  JobManagerOptions mo = Options();
  int model_m = 16;  // each model job's one dense task: a shape the log has no records of yet
  mo.expand_model = [&model_m](const v1::ModelSpec&, const std::string&) {
    const v1::JobSpec one = DenseSpec(1, model_m);
    return absl::StatusOr<std::vector<v1::TaskSpec>>(
        std::vector<v1::TaskSpec>(one.tasks().begin(), one.tasks().end()));
  };
  JobManager manager(mo);
  // Returns the ended job's stored cache mode and whether each of its records was timed cold.
  auto run = [&](const v1::JobSpec& spec, v1::TimingCache* cache, std::vector<bool>* cold) {
    auto id = manager.Submit(spec);
    ASSERT_TRUE(id.ok()) << id.status();
    v1::JobStatus st = WaitFor(manager, *id, [](const auto&) { return false; });
    ASSERT_EQ(st.state(), v1::JOB_SUCCEEDED) << st.error();
    *cache = st.spec().cache();
    auto records = log_->JobHistory(st.log_job_id());
    ASSERT_TRUE(records.ok()) << records.status();
    ASSERT_FALSE(records->empty());
    for (const db::Record& r : *records) cold->push_back(r.cold_cache);
  };
  v1::JobSpec model = DenseSpec(4);
  model.clear_tasks();
  model.mutable_model()->set_onnx("fake: the expander above ignores it");
  v1::TimingCache cache;
  std::vector<bool> cold;
  run(model, &cache, &cold);
  EXPECT_EQ(cache, v1::TIMING_CACHE_COLD);
  EXPECT_EQ(cold, std::vector<bool>(cold.size(), true));

  cold.clear();
  run(DenseSpec(4, 32), &cache, &cold);
  EXPECT_EQ(cache, v1::TIMING_CACHE_UNSPECIFIED);
  EXPECT_EQ(cold, std::vector<bool>(cold.size(), false));

  cold.clear();
  model.set_cache(v1::TIMING_CACHE_WARM);  // a model job that asks for warm timing gets it
  model_m = 64;
  run(model, &cache, &cold);
  EXPECT_EQ(cache, v1::TIMING_CACHE_WARM);
  EXPECT_EQ(cold, std::vector<bool>(cold.size(), false));

  v1::JobSpec unknown = DenseSpec(4, 48);
  unknown.set_cache(static_cast<v1::TimingCache>(9));  // a newer client's mode
  EXPECT_EQ(manager.Submit(unknown).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(JobManagerFarmTest, ServiceStopsMidJob_NewManagerResumes_EveryTrialOnceInLog) {
  constexpr int kTrials = 40;
  std::string id;
  {
    JobManager first(Options());
    ASSERT_EQ(*first.Recover(), 0);
    auto submitted = first.Submit(DenseSpec(kTrials));
    ASSERT_TRUE(submitted.ok()) << submitted.status();
    id = *submitted;
    v1::JobStatus midway =
        WaitFor(first, id, [](const v1::JobStatus& s) { return s.trials_done() >= 8; });
    ASSERT_FALSE(JobManager::IsTerminal(midway.state())) << midway.error();
  }  // the service stops: the job is left unfinished in the store
  auto rows = store_->Load();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_FALSE((*rows)[0].terminal);
  const int64_t before = *log_->CountRecords();
  EXPECT_GE(before, 8);
  EXPECT_LT(before, kTrials);

  JobManager second(Options());
  ASSERT_EQ(*second.Recover(), 1);
  v1::JobStatus done = WaitFor(second, id, [](const auto&) { return false; });
  ASSERT_EQ(done.state(), v1::JOB_SUCCEEDED) << done.error();
  EXPECT_EQ(done.resumed(), 1);
  EXPECT_EQ(done.trials_done(), kTrials);
  // Every trial once: the resumed run counted the first run's records and measured the rest.
  EXPECT_EQ(*log_->CountRecords(), kTrials);
  // The next job gets a fresh id.
  auto next = second.Submit(DenseSpec(4, 32));
  ASSERT_TRUE(next.ok());
  EXPECT_NE(*next, id);
}

// The user cancels while the farm is gone (tracker and worker stopped mid-job, as when its
// machine dies): the job ends CANCELLED within seconds, not after the batch's 10-minute
// timeout, and the trials measured before stay in the log.
TEST_F(JobManagerFarmTest, CancelWhileFarmGone_EndsCancelledKeepingTrials) {
  JobManager manager(Options());
  v1::JobSpec spec = DenseSpec(400);
  spec.set_batch_size(8);
  auto id = manager.Submit(spec);
  ASSERT_TRUE(id.ok()) << id.status();
  v1::JobStatus midway =
      WaitFor(manager, *id, [](const v1::JobStatus& s) { return s.trials_done() >= 8; });
  ASSERT_FALSE(JobManager::IsTerminal(midway.state())) << midway.error();
  farm_->local.reset();  // the tracker and its worker are gone; the client stays
  const absl::Time cancelled_at = absl::Now();
  ASSERT_TRUE(manager.Cancel(*id).ok());
  v1::JobStatus done = WaitFor(manager, *id, [](const auto&) { return false; });
  EXPECT_EQ(done.state(), v1::JOB_CANCELLED) << done.error();
  // A bound no machine's speed decides: the wait is checked every 2 s (plus one refused call).
  EXPECT_LT(absl::Now() - cancelled_at, absl::Seconds(60));
  EXPECT_GE(*log_->CountRecords(), 8);
  EXPECT_EQ(*log_->CountRecords(), done.trials_done());
}

constexpr char kDenseBiasRelu[] =
    "A = input(float32, [M, K]); W = input(float32, [N, K]); b = input(float32, [N])\n"
    "C[i, j] = sum(k: A[i, k] * W[j, k])\n"
    "Y[i, j] = max(C[i, j] + b[j], 0.0)\n";

// A program of the tensor-expression language submitted over gRPC: it tunes on the embedded
// local farm in its generated space, its text is kept in the tuning log, QueryBest answers for
// the workload the job status names, and the best config exports to a shared library. A
// program that does not check is refused with INVALID_ARGUMENT and the fault's position.
TEST_F(JobManagerFarmTest, ProgramOverGrpc_TunedLoggedQueriedAndExported) {
  JobManager manager(Options());
  auto server = JobServer::Start(&manager, log_.get(), {});
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::JobService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string((*server)->port()), grpc::InsecureChannelCredentials()));

  v1::SubmitJobRequest submit;
  v1::TaskSpec* task = submit.mutable_spec()->add_tasks();
  task->set_program(kDenseBiasRelu);
  task->set_program_name("dense_bias_relu");
  (*task->mutable_shapes())["M"] = 8;
  (*task->mutable_shapes())["N"] = 24;
  (*task->mutable_shapes())["K"] = 13;
  submit.mutable_spec()->set_trials(12);
  submit.mutable_spec()->set_batch_size(4);
  submit.mutable_spec()->set_strategy("xgb");
  submit.mutable_spec()->set_device_key("cpu-test");
  v1::SubmitJobResponse submitted;
  {
    grpc::ClientContext ctx;
    grpc::Status st = stub->SubmitJob(&ctx, submit, &submitted);
    ASSERT_TRUE(st.ok()) << st.error_message();
  }
  v1::JobStatus status;
  for (int i = 0; i < 600; ++i) {  // At most 10 minutes; typically seconds.
    grpc::ClientContext ctx;
    v1::JobRequest req;
    req.set_job_id(submitted.job_id());
    ASSERT_TRUE(stub->GetJob(&ctx, req, &status).ok());
    if (JobManager::IsTerminal(status.state())) break;
    absl::SleepFor(absl::Seconds(1));
  }
  ASSERT_EQ(status.state(), v1::JOB_SUCCEEDED) << status.error();
  ASSERT_EQ(status.tasks_size(), 1);
  const v1::TaskStatus& ts = status.tasks(0);
  // The identity: name and hash of the canonical text; args are M, K, N by first appearance.
  auto program = ProgramTemplate::Create("dense_bias_relu", kDenseBiasRelu);
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(ts.workload_template(), (*program)->name());
  EXPECT_EQ(ts.workload_args(), "[8,13,24,\"float32\"]");
  EXPECT_GT(ts.best_gflops(), 0);
  std::string name, hash;
  ASSERT_TRUE(ParseProgramTemplateName(ts.workload_template(), &name, &hash).ok());
  auto text = log_->ProgramText(hash);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, (*program)->canonical_text());

  v1::QueryBestRequest q;
  q.mutable_workload()->set_template_name(ts.workload_template());
  q.mutable_workload()->set_args(ts.workload_args());
  q.set_target(codegen::ParseTarget("llvm")->str);
  q.set_k(2);
  v1::QueryBestResponse best;
  {
    grpc::ClientContext ctx;
    grpc::Status st = stub->QueryBest(&ctx, q, &best);
    ASSERT_TRUE(st.ok()) << st.error_message();
  }
  ASSERT_GE(best.best_size(), 1);
  EXPECT_GT(best.best(0).gflops(), 0);
  EXPECT_TRUE(absl::StrContains(best.best(0).record().config_json(), "Y.tile_j"));

  auto w = db::Workload::Make(ts.workload_template(), ts.workload_args(), 0);
  ASSERT_TRUE(w.ok());
  ExportOptions eo;
  eo.target = "llvm";
  eo.library_path = ::testing::TempDir() + "/program_job.so";
  eo.header_path = ::testing::TempDir() + "/program_job.h";
  auto exported = ExportLibrary(*log_, {*w}, eo);
  ASSERT_TRUE(exported.ok()) << exported.status();
  ASSERT_EQ(exported->size(), 1u);
  EXPECT_TRUE(absl::StartsWith((*exported)[0].symbol, "expr_dense_bias_relu_"));

  // A program with an error is refused with its position.
  v1::SubmitJobRequest bad = submit;
  bad.mutable_spec()->mutable_tasks(0)->set_program(
      "A = input(float32, [M, K]); W = input(float32, [N, K]); b = input(float32, [N])\n"
      "Y[i, j] = sum(k: A[i, k] * W[j, k + 1]) + b[j]\n");
  v1::SubmitJobResponse ignored;
  grpc::ClientContext ctx;
  grpc::Status st = stub->SubmitJob(&ctx, bad, &ignored);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(st.error_message(), "line 2, column")) << st.error_message();
}

}  // namespace
}  // namespace tunefarm::tuner
