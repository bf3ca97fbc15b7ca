#include "tuner/service/task_spec.h"

#include "absl/status/status.h"

namespace tunefarm::tuner {

absl::StatusOr<TuneTask> MakeTaskFromSpec(const v1::TaskSpec& spec, const std::string& target,
                                          const std::string& device_key) {
  if (spec.program().empty()) {
    if (spec.template_name().empty()) {
      return absl::InvalidArgumentError("a task names a template or carries a program");
    }
    if (!spec.shapes().empty() || !spec.program_name().empty()) {
      return absl::InvalidArgumentError(
          "shapes and program_name belong to programs; a template takes args");
    }
    return MakeTask(spec.template_name(), {spec.args().begin(), spec.args().end()},
                    spec.dtype().empty() ? "float32" : spec.dtype(), target, device_key);
  }
  if (!spec.template_name().empty()) {
    return absl::InvalidArgumentError("a task has either a template_name or a program, not both");
  }
  if (spec.args_size() > 0 || !spec.dtype().empty()) {
    return absl::InvalidArgumentError(
        "a program's shapes are named (shapes: {\"M\": 128}) and its types are its own; leave "
        "args and dtype empty");
  }
  absl::flat_hash_map<std::string, int64_t> shapes(spec.shapes().begin(), spec.shapes().end());
  return MakeProgramTask(spec.program_name(), spec.program(), shapes, target, device_key);
}

}  // namespace tunefarm::tuner
