// Import and export of AutoTVM's JSON-lines tuning log format, so existing TVM logs load into
// the tuning log and our results are usable by TVM (`autotvm.apply_history_best`).
//
// One record per line:
//   {"input": [TARGET, TASK_NAME, ARGS, KWARGS],
//    "config": {"index": N, "code_hash": null, "entity": [[KNOB, TYPE, VALUE], ...]},
//    "result": [COSTS, ERROR_NO, ALL_COST, TIMESTAMP], "version": 0.2, "tvm_version": "0.8.0"}
//
// Lines whose first non-blank character is '#' (TVM's published logs start with such comments)
// and blank lines are skipped.
//
// Mapping (db/autotvm_tasks.h; the full table is in db/README.md):
//   * TASK_NAME -> template ("conv2d_NCHWc.x86" -> "conv2d_nchwc", "dense_pack.x86" -> "dense",
//     ...). ARGS convert into the template's own workload (canonical args and FLOP count,
//     exactly what a tunefarm tune of that shape records), so `best --workload`, transfer
//     learning and the dashboard find the records with GFLOP/s. Args with no tunefarm
//     equivalent (dilation, groups, another layout, a bias, ...) keep TVM's list verbatim
//     ("raw"), and the import report says why.
//   * ENTITY: where the task's knobs correspond to the template's (conv2d_NCHWc.x86,
//     dense_pack.x86, dense_nopack.x86, batch_matmul.x86), the config is translated into the
//     template's knobs and resolved to its config index (by AutotvmImportOptions::resolve,
//     since only the tuner knows the spaces): the record can be measured again
//     (`tune --seed-from-log`). Otherwise the config stays TVM's ("untranslated"): shown by
//     `best`, never re-measured, with a negative config index (-1 - TVM's index) that no
//     space contains.
//   * Reserved config keys keep what a TVM -> tunefarm -> TVM trip needs: "tvm_task" (a task
//     that is not the template's export task; "_autotvm_task" before), "tvm_index" (TVM's
//     config index), "tvm_entity" (TVM's entity, when the translation was approximate) and
//     "tvm_untranslated" (true: the knobs are TVM's). They are listed once, in
//     db/autotvm_tasks.h (IsAutotvmProvenanceKey).
//   * A line is malformed (counted and reported, never imported) when a field is missing or
//     ill-typed, a knob's type is none of TVM's (sp, re, an, ot) or its name a reserved key, or
//     a number is out of range: a config index that is negative or not an integer below 2^53,
//     a non-finite time, cost or FLOP count, a job id or core count that is not a
//     non-negative integer, or a tunefarm config index that contradicts its config (negative
//     exactly when the config is TVM's untranslated one, and then -1 - tvm_index).
//   * Export writes the task's argument list and the TVM knob names and types back.
//   * ERROR_NO <-> ErrorClass (TVM's MeasureErrorNo 0..8). Failed records export cost [1e9].
//   * What TVM has no field for (device key and fingerprint, job, exact error class and
//     message, tuner version, template, args, FLOP count, tunefarm's config and index) is
//     written under the extra key "tunefarm", which TVM ignores; import prefers it, so our
//     export imports back to identical records.
#ifndef TUNEFARM_DB_AUTOTVM_LOG_H_
#define TUNEFARM_DB_AUTOTVM_LOG_H_

#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "db/autotvm_tasks.h"
#include "db/record.h"
#include "db/tuning_log.h"

namespace tunefarm::db {

// A translated config resolved into the template's config space.
struct ResolvedConfig {
  // The config index in the template's space and its knobs as the tuner records them
  // (Config::ToJson).
  int64_t index = 0;
  std::string config_json;
};

// Resolves translated knobs (a JSON object, one value per knob of the template's space) of a
// converted workload on `target` into the template's space. Any error leaves the record
// untranslated, with the error's message as the reason.
using AutotvmConfigResolver = std::function<absl::StatusOr<ResolvedConfig>(
    const Workload& workload, const std::string& target, const std::string& knobs_json)>;

// How imported TVM lines (which carry no device information) are labelled.
struct AutotvmImportOptions {
  // Device key of records without a "tunefarm" extra.
  std::string device_key = "autotvm";
  // Tuner version of records without a "tunefarm" extra.
  std::string tuner_version = "autotvm";
  // Records per transaction.
  int batch_size = 500;
  // Resolves translated configs; without it every config stays untranslated.
  AutotvmConfigResolver resolve;
};

// What became of one parsed line.
struct AutotvmLineInfo {
  // The args became the template's workload (else TVM's list was kept: `note` says why).
  bool converted = false;
  // Converted lines: the config translated into the template's space (else it stayed TVM's:
  // `note` says why); `approximate` when TVM's config had more than the template's knobs.
  bool translated = false;
  bool approximate = false;
  std::string note;
};

// What an import did. Bad lines are counted, never fatal.
struct AutotvmImportReport {
  // Non-blank lines read, '#' comments not counted.
  int64_t lines = 0;
  // '#' comment lines skipped.
  int64_t comments = 0;
  int64_t imported = 0;
  // Not JSON, missing/ill-typed fields, out-of-range numbers (see the top of this file).
  int64_t malformed = 0;
  // Valid lines whose task name maps to no template.
  int64_t unknown_template = 0;
  // Imported lines whose args became the template's workload, and ones that kept TVM's args.
  int64_t converted = 0;
  int64_t raw_args = 0;
  // Of the converted: configs translated into the template's space (approximate ones
  // included, and counted again in `approximate`) and ones kept as TVM's.
  int64_t translated = 0;
  int64_t approximate = 0;
  int64_t untranslated = 0;
  // "line N: reason" for the first kMaxProblems bad lines.
  std::vector<std::string> problems;
  // "line N: reason" for the first kMaxProblems lines that kept TVM's args or config.
  std::vector<std::string> notes;
  static constexpr int kMaxProblems = 20;
};

// True for a blank line or a '#' comment line, which imports skip.
bool IsAutotvmCommentOrBlank(absl::string_view line);

// Parses one line into a record (id 0); `info` (if set) says what was converted.
// InvalidArgument: malformed line (a comment line included). NotFound: the task name maps to
// no template.
absl::StatusOr<Record> ParseAutotvmLine(absl::string_view line,
                                        const AutotvmImportOptions& options = {},
                                        AutotvmLineInfo* info = nullptr);

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
