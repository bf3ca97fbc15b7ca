// Runs a tuning job and shows its progress: in this process (on the embedded local farm, or the
// farm of --tracker) when no --service is given, else on that job service. Shared by `tune` and
// `tune-model`.
#ifndef TUNEFARM_CLI_RUN_JOB_H_
#define TUNEFARM_CLI_RUN_JOB_H_

#include <functional>
#include <string>

#include "proto/job.pb.h"

namespace tunefarm::cli {

// Submits `spec`, follows it to its end (Ctrl-C cancels it; its measurements stay in the log)
// and prints the summary; `command` prefixes error messages. Returns the exit code.
// `describe` replaces the progress line's default summary (ProgressLine::Describe).
int RunJob(v1::JobSpec spec, const std::string& command,
           std::function<std::string(const v1::JobStatus&)> describe = nullptr);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_RUN_JOB_H_
