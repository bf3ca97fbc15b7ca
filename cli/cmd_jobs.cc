// `tunefarm jobs`, `tunefarm watch JOB`, `tunefarm cancel JOB`: talk to a job service.
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/job_display.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"
#include "common/transport.h"

namespace tunefarm::cli {
namespace {

int Fail(const char* cmd, const absl::Status& s) {
  absl::FPrintF(stderr, "tunefarm %s: %s\n", cmd, s.ToString());
  return s.code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
}

}  // namespace

int RunJobs(const std::vector<std::string>& positional) {
  if (!positional.empty()) return Fail("jobs", absl::InvalidArgumentError("takes no arguments"));
  auto stub = ConnectJobService();
  if (!stub.ok()) return Fail("jobs", stub.status());
  grpc::ClientContext ctx;
  AttachServiceToken(&ctx);
  v1::ListJobsResponse resp;
  grpc::Status st = (*stub)->ListJobs(&ctx, v1::ListJobsRequest(), &resp);
  if (!st.ok()) return Fail("jobs", FromGrpcStatus(st));
  PrintJobTable({resp.jobs().begin(), resp.jobs().end()}, stdout);
  return kExitOk;
}

int RunWatch(const std::vector<std::string>& positional) {
  if (positional.size() != 1) return Fail("watch", absl::InvalidArgumentError("expected one JOB"));
  auto stub = ConnectJobService();
  if (!stub.ok()) return Fail("watch", stub.status());
  grpc::ClientContext ctx;
  AttachServiceToken(&ctx);
  v1::JobRequest req;
  req.set_job_id(positional[0]);
  auto reader = (*stub)->WatchJob(&ctx, req);
  ProgressLine progress(stderr);
  v1::JobStatus status;
  bool any = false;
  while (reader->Read(&status)) {
    any = true;
    progress.Update(status);
  }
  progress.Finish();
  grpc::Status st = reader->Finish();
  if (!st.ok()) return Fail("watch", FromGrpcStatus(st));
  if (any) PrintJobSummary(status, stdout);
  return kExitOk;
}

int RunCancel(const std::vector<std::string>& positional) {
  if (positional.size() != 1) return Fail("cancel", absl::InvalidArgumentError("expected one JOB"));
  auto stub = ConnectJobService();
  if (!stub.ok()) return Fail("cancel", stub.status());
  grpc::ClientContext ctx;
  AttachServiceToken(&ctx);
  v1::JobRequest req;
  req.set_job_id(positional[0]);
  v1::JobStatus status;
  grpc::Status st = (*stub)->CancelJob(&ctx, req, &status);
  if (!st.ok()) return Fail("cancel", FromGrpcStatus(st));
  absl::PrintF("cancelling %s (was %s)\n", status.job_id(), JobStateName(status.state()));
  return kExitOk;
}

}  // namespace tunefarm::cli
