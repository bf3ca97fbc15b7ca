// Import and export of AutoTVM's JSON-lines tuning log format, so existing TVM logs load into
// the tuning log and our results are usable by TVM (`autotvm.apply_history_best`).
//
// One record per line:
//   {"input": [TARGET, TASK_NAME, ARGS, KWARGS],
//    "config": {"index": N, "code_hash": null, "entity": [[KNOB, TYPE, VALUE], ...]},
//    "result": [COSTS, ERROR_NO, ALL_COST, TIMESTAMP], "version": 0.2, "tvm_version": "0.8.0"}
//
// Mapping (see db/README.md for the full table):
//   * TASK_NAME <-> template name via a fixed table ("dense_nopack.x86" -> "dense", ...). A task
//     that is not the template's default export name is kept in the config JSON under
//     "_autotvm_task" so it survives a TVM -> tunefarm -> TVM trip.
//   * ARGS: dense [M,N,K,dtype] <-> [["TENSOR",[M,K],dt],["TENSOR",[N,K],dt],null,dt]; other
//     templates keep TVM's argument list verbatim as the workload args.
//   * ENTITY <-> config JSON object {KNOB: VALUE}; the knob TYPE is inferred on export
//     ("sp" split lists starting with -1, "re" permutations, "an" strings, "ot" the rest).
//   * ERROR_NO <-> ErrorClass (TVM's MeasureErrorNo 0..8). Failed records export cost [1e9].
//   * What TVM has no field for (device key and fingerprint, job, exact error class and
//     message, tuner version, template, args, FLOP count) is written under the extra key
//     "tunefarm", which TVM ignores; import prefers it, so our export imports back to
//     identical records.
#ifndef TUNEFARM_DB_AUTOTVM_LOG_H_
#define TUNEFARM_DB_AUTOTVM_LOG_H_

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "db/record.h"
#include "db/tuning_log.h"

namespace tunefarm::db {

// How imported TVM lines (which carry no device information) are labelled.
struct AutotvmImportOptions {
  // Device key of records without a "tunefarm" extra.
  std::string device_key = "autotvm";
  // Tuner version of records without a "tunefarm" extra.
  std::string tuner_version = "autotvm";
  // Records per transaction.
  int batch_size = 500;
};

// What an import did. Bad lines are counted, never fatal.
struct AutotvmImportReport {
  // Non-blank lines read.
  int64_t lines = 0;
  int64_t imported = 0;
  // Not JSON, or missing/ill-typed fields.
  int64_t malformed = 0;
  // Valid lines whose task name maps to no template.
  int64_t unknown_template = 0;
  // "line N: reason" for the first kMaxProblems bad lines.
  std::vector<std::string> problems;
  static constexpr int kMaxProblems = 20;
};

// The template of a TVM task name. NotFound: unknown task.
absl::StatusOr<std::string> TemplateForAutotvmTask(absl::string_view task_name);
// The TVM task name a template exports as. NotFound: no TVM equivalent.
absl::StatusOr<std::string> AutotvmTaskForTemplate(absl::string_view template_name);

// Parses one line into a record (id 0).
// InvalidArgument: malformed line. NotFound: the task name maps to no template.
absl::StatusOr<Record> ParseAutotvmLine(absl::string_view line,
                                        const AutotvmImportOptions& options = {});

// Formats one record as a line (no trailing newline).
// NotFound: the record's template has no TVM task name (and so no line TVM could use).
absl::StatusOr<std::string> FormatAutotvmLine(const Record& record);

// Imports every line of `in` into `log` in batched transactions.
// Errors only when the log itself fails (Unavailable, Internal, ...): records of batches
// committed before the failure stay.
absl::StatusOr<AutotvmImportReport> ImportAutotvmLog(std::istream& in, TuningLog& log,
                                                     const AutotvmImportOptions& options = {});

// Writes the matching records of `log` to `out` in id order and returns how many were written.
// Records whose template has no TVM task name are skipped and counted in `*skipped` (if set).
// Internal: writing `out` failed; others as TuningLog::ForEachRecord.
absl::StatusOr<int64_t> ExportAutotvmLog(const TuningLog& log, const RecordFilter& filter,
                                         std::ostream& out, int64_t* skipped = nullptr);

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_AUTOTVM_LOG_H_
