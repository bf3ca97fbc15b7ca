// A program of the tensor-expression language submitted to the job service over gRPC: it
// tunes on the embedded local farm in its generated space, its text is kept in the tuning
// log, QueryBest answers for the workload the job status names, and the best config exports
// to a shared library. A program that does not elaborate is refused with INVALID_ARGUMENT and
// the line and column of the fault.
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <string>

#include "absl/strings/match.h"
#include "compiler/codegen/target.h"
#include "db/tuning_log.h"
#include "farm/farm_setup.h"
#include "gtest/gtest.h"
#include "proto/job.grpc.pb.h"
#include "tuner/export/export_library.h"
#include "tuner/generated/program_template.h"
#include "tuner/service/job_manager.h"
#include "tuner/service/job_service.h"
#include "tuner/tuning/strategy_factory.h"

namespace tunefarm::tuner {
namespace {

constexpr char kDenseBiasRelu[] =
    "A = input(float32, [M, K]); W = input(float32, [N, K]); b = input(float32, [N])\n"
    "C[i, j] = sum(k: A[i, k] * W[j, k])\n"
    "Y[i, j] = max(C[i, j] + b[j], 0.0)\n";

TEST(ProgramJob, SubmittedOverGrpc_TunedLoggedQueriedAndExported) {
  FarmSetupOptions fo;
  fo.key = "cpu-test";
  fo.num_workers = 1;
  auto farm = StartFarm(fo);
  ASSERT_TRUE(farm.ok()) << farm.status();
  const std::string db_path = ::testing::TempDir() + "/program_job.db";
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
  auto server = JobServer::Start(&manager, log->get(), {});
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
  auto text = (*log)->ProgramText(hash);
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
  auto exported = ExportLibrary(**log, {*w}, eo);
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
