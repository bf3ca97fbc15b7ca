#include "cli/run_job.h"

#include <atomic>
#include <string>
#include <thread>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/farm_flags.h"
#include "cli/job_display.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"
#include "common/transport.h"

ABSL_DECLARE_FLAG(std::string, key);

namespace tunefarm::cli {
namespace {

int Finish(const v1::JobStatus& s) {
  PrintJobSummary(s, stdout);
  return s.state() == v1::JOB_SUCCEEDED ? kExitOk : kExitFailure;
}

// Runs the job in this process and watches it; Ctrl-C cancels it.
int RunLocal(v1::JobSpec spec, const std::string& command, const ProgressLine::Describe& describe) {
  BlockTerminationSignals();
  auto stack = StartTuningStack();
  if (!stack.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", command, stack.status().ToString());
    return kExitFailure;
  }
  spec.set_device_key((*stack)->farm->device_key);
  auto id = (*stack)->manager->Submit(spec);
  if (!id.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", command, id.status().ToString());
    return id.status().code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  if ((*stack)->farm->local != nullptr) {
    absl::FPrintF(stderr, "embedded local farm: %s, key %s; tuning log: %s\n",
                  (*stack)->farm->local->address(), (*stack)->farm->device_key,
                  (*stack)->log->path());
  }
  std::atomic<bool> done{false};
  std::thread interrupt([&] {
    while (!done) {
      if (WaitForTerminationSignalFor(200) != 0) {
        absl::FPrintF(stderr, "\ncancelling %s (measurements so far stay in the log)...\n", *id);
        (void)(*stack)->manager->Cancel(*id);
      }
    }
  });
  ProgressLine progress(stderr, describe);
  int64_t version = 0;
  v1::JobStatus status;
  while (true) {
    auto s = (*stack)->manager->WaitForChange(*id, version, absl::Seconds(1));
    if (!s.ok()) break;
    status = *s;
    version = status.version();
    progress.Update(status);
    if (tuner::JobManager::IsTerminal(status.state())) break;
  }
  done = true;
  interrupt.join();
  progress.Finish();
  return Finish(status);
}

// Submits to a running job service and streams its progress; Ctrl-C cancels the job.
int RunRemote(const v1::JobSpec& spec, const std::string& command,
              const ProgressLine::Describe& describe) {
  auto stub = ConnectJobService();
  if (!stub.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", command, stub.status().ToString());
    return kExitFailure;
  }
  v1::SubmitJobRequest req;
  *req.mutable_spec() = spec;
  if (req.spec().device_key().empty()) req.mutable_spec()->set_device_key(absl::GetFlag(FLAGS_key));
  v1::SubmitJobResponse resp;
  grpc::ClientContext ctx;
  AttachServiceToken(&ctx);
  grpc::Status st = (*stub)->SubmitJob(&ctx, req, &resp);
  if (!st.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", command, FromGrpcStatus(st).ToString());
    return st.error_code() == grpc::StatusCode::INVALID_ARGUMENT ? kExitUsage : kExitFailure;
  }
  absl::FPrintF(stderr, "submitted %s to %s\n", resp.job_id(), ServiceAddress());
  BlockTerminationSignals();
  std::atomic<bool> done{false};
  std::thread interrupt([&] {
    while (!done) {
      if (WaitForTerminationSignalFor(200) != 0) {
        grpc::ClientContext cctx;
        AttachServiceToken(&cctx);
        v1::JobRequest jr;
        jr.set_job_id(resp.job_id());
        v1::JobStatus ignored;
        (void)(*stub)->CancelJob(&cctx, jr, &ignored);
      }
    }
  });
  grpc::ClientContext wctx;
  AttachServiceToken(&wctx);
  v1::JobRequest jr;
  jr.set_job_id(resp.job_id());
  auto reader = (*stub)->WatchJob(&wctx, jr);
  ProgressLine progress(stderr, describe);
  v1::JobStatus status;
  while (reader->Read(&status)) progress.Update(status);
  grpc::Status end = reader->Finish();
  done = true;
  interrupt.join();
  progress.Finish();
  if (!end.ok()) {
    absl::FPrintF(stderr, "%s: watch failed: %s\n", command, FromGrpcStatus(end).ToString());
    return kExitFailure;
  }
  return Finish(status);
}

}  // namespace

int RunJob(v1::JobSpec spec, const std::string& command,
           std::function<std::string(const v1::JobStatus&)> describe) {
  return ServiceAddress().empty() ? RunLocal(std::move(spec), command, describe)
                                  : RunRemote(spec, command, describe);
}

}  // namespace tunefarm::cli
