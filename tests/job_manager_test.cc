// The job service in process: a two-task job shares its budget through the task scheduler on
// the embedded local farm and lands in the tuning log; QueryBest answers over gRPC from it.
#include "tuner/service/job_manager.h"

#include <grpcpp/grpcpp.h>

#include "db/tuning_log.h"
#include "gtest/gtest.h"
#include "proto/job.grpc.pb.h"
#include "tracker/local_farm.h"
#include "tracker/tracker_client.h"
#include "tuner/service/job_service.h"
#include "tuner/tuning/strategy_factory.h"

namespace tunefarm::tuner {
namespace {

TEST(JobManager, TwoTaskJob_SharesBudget_RecordsAndQueryBest) {
  LocalFarmOptions fo;
  fo.key = "cpu-test";
  auto farm = LocalFarm::Start(fo);
  ASSERT_TRUE(farm.ok()) << farm.status();
  auto client = TrackerClient::Connect({.address = (*farm)->address(), .token = (*farm)->token()});
  ASSERT_TRUE(client.ok());
  std::string db_path = ::testing::TempDir() + "/job_manager.db";
  std::remove(db_path.c_str());
  auto log = db::TuningLog::Open(db_path);
  ASSERT_TRUE(log.ok());

  JobManagerOptions mo;
  mo.client = client->get();
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
  dense->set_weight(2);
  v1::TaskSpec* relu = spec.add_tasks();
  relu->set_template_name("bias_relu");
  for (int v : {8, 32}) relu->add_args(v);
  spec.set_trials(24);
  spec.set_batch_size(4);
  spec.set_strategy("random");
  spec.set_top_k(2);
  auto id = manager.Submit(spec);
  ASSERT_TRUE(id.ok()) << id.status();

  v1::JobStatus status;
  int64_t version = 0;
  for (int i = 0; i < 600; ++i) {  // At most 10 minutes; typically a few seconds.
    auto s = manager.WaitForChange(*id, version, absl::Seconds(1));
    ASSERT_TRUE(s.ok());
    status = *s;
    version = status.version();
    if (JobManager::IsTerminal(status.state())) break;
  }
  ASSERT_EQ(status.state(), v1::JOB_SUCCEEDED) << status.error();
  ASSERT_EQ(status.tasks_size(), 2);
  EXPECT_GE(status.trials_done(), 24);
  EXPECT_GT(status.tasks(0).trials_done(), 0);
  EXPECT_GT(status.tasks(1).trials_done(), 0);
  EXPECT_GT(status.tasks(0).best_gflops(), 0);
  EXPECT_GT(status.tasks(1).best_gflops(), 0);
  EXPECT_GE(*(*log)->CountRecords(), 24);

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

}  // namespace
}  // namespace tunefarm::tuner
