// How job progress and results look in the terminal: a live progress line (trials, best
// GFLOP/s, ETA, best config) and a final summary table per task.
#ifndef TUNEFARM_CLI_JOB_DISPLAY_H_
#define TUNEFARM_CLI_JOB_DISPLAY_H_

#include <cstdio>
#include <functional>
#include <string>

#include "proto/job.pb.h"

namespace tunefarm::cli {

// Redraws the progress line on a terminal (one line per 10% otherwise).
class ProgressLine {
 public:
  // What a job's line says after its trial count (default: the best GFLOP/s and config, or for
  // a job of several tasks the sum of their weighted best times).
  using Describe = std::function<std::string(const v1::JobStatus&)>;
  explicit ProgressLine(FILE* out, Describe describe = nullptr);
  void Update(const v1::JobStatus& s);
  // Ends the line (call before printing anything else).
  void Finish();

 private:
  FILE* out_;
  Describe describe_;
  bool tty_;
  int last_decile_ = -1;
  bool drawn_ = false;
};

// The final result: state, per-task best GFLOP/s, time and config.
void PrintJobSummary(const v1::JobStatus& s, FILE* out);
// One row per job.
void PrintJobTable(const std::vector<v1::JobStatus>& jobs, FILE* out);
const char* JobStateName(v1::JobState state);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_JOB_DISPLAY_H_
