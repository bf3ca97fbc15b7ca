// A tuning task: one workload of one template on one target and device key.
#ifndef TUNEFARM_TUNER_TUNING_TASK_H_
#define TUNEFARM_TUNER_TUNING_TASK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "db/record.h"
#include "tuner/space/config_space.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

// Everything the builder and the search need to know about what is tuned. Copies share the
// template and the space.
struct TuneTask {
  // The template that defines and schedules the program: a registry template (not owned:
  // the registry lives as long as the process), a program of the tensor-expression language
  // or a registry template with the generated space (both owned, shared by the copies).
  std::shared_ptr<const Template> tmpl;
  // The template's shape arguments, dtype and FLOP count.
  Workload workload;
  // What the configs are compiled for (CPU or CUDA).
  codegen::Target target;
  // Queue key of the devices that measure it, e.g. "cpu-znver4".
  std::string device_key;
  // The template's knobs for this workload and target; shared, so every copy of the task
  // (such as the one a model-based strategy keeps) indexes the same space.
  std::shared_ptr<const ConfigSpace> space;

  // The workload as the tuning log names it (template name, canonical args JSON, FLOP count).
  db::Workload DbWorkload() const;
};

// Looks up the template, validates the shape and dtype, parses the target (empty: "llvm", the
// host CPU) and defines the space. A name "generated:<template>" is the template's operator
// with the generated space (tuner/generated). InvalidArgument: unknown template, bad shape or
// dtype, bad target, empty device key, a template that cannot run on the target (e.g. tensor
// cores on a CPU), a program's name ("expr:...": use MakeProgramTask).
absl::StatusOr<TuneTask> MakeTask(const std::string& template_name,
                                  const std::vector<int64_t>& args, const std::string& dtype,
                                  const std::string& target, const std::string& device_key);

// A program of the tensor-expression language as a task: `text` parsed, `shapes` bound to its
// shape variables, its space generated. `name` is for people (default "program"). The task's
// template name is "expr:<name>:<hash of the canonical text>". InvalidArgument: parse and
// elaboration errors (with line and column), a missing or unknown shape binding, a bad
// target or device key; Unimplemented: a cuda target and a program whose generated GPU
// schedule would need more than one kernel (see tuner/generated/gpu_space.h).
absl::StatusOr<TuneTask> MakeProgramTask(const std::string& name, const std::string& text,
                                         const absl::flat_hash_map<std::string, int64_t>& shapes,
                                         const std::string& target, const std::string& device_key);

// The two workload types and the one conversion between them: a template's Workload (typed
// args, dtype, FLOPs; template.h) is stored in the log as a db::Workload (template name and
// canonical args JSON such as [1024,1024,1024,"float32"]; db/record.h). TuneTask::DbWorkload
// goes one way; ParseWorkloadArgs and MakeTaskFor go back.

// The integer args and dtype of a logged args array: integers first, then one dtype string
// (float32 when absent). InvalidArgument: not a JSON array, a number that is not an integer, a
// second string, or any other kind of value.
struct WorkloadArgs {
  std::vector<int64_t> args;
  std::string dtype = "float32";
};
absl::StatusOr<WorkloadArgs> ParseWorkloadArgs(const std::string& args_json);

// MakeTask for a logged workload. A program's workload ("expr:...") needs its text, which the
// tuning log keeps (TuningLog::ProgramText): `program_text` supplies it. Errors: as
// ParseWorkloadArgs and MakeTask; NotFound: a program workload with no text supplied; a
// text whose hash is not the one in the name is InvalidArgument.
absl::StatusOr<TuneTask> MakeTaskFor(
    const db::Workload& workload, const std::string& target, const std::string& device_key,
    const std::function<absl::StatusOr<std::string>(const std::string& hash)>& program_text = {});

// The program text of a task made by MakeProgramTask (its canonical form); empty for others.
std::string ProgramTextOf(const TuneTask& task);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_TASK_H_
