// The one conversion from a job's TaskSpec (proto) to a tuning task: a registry template (or
// its generated space), or a program of the tensor-expression language.
#ifndef TUNEFARM_TUNER_SERVICE_TASK_SPEC_H_
#define TUNEFARM_TUNER_SERVICE_TASK_SPEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "proto/job.pb.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// InvalidArgument: both or neither of template_name and program; a program with args or a
// dtype, a template with shapes; and every error of MakeTask / MakeProgramTask.
absl::StatusOr<TuneTask> MakeTaskFromSpec(const v1::TaskSpec& spec, const std::string& target,
                                          const std::string& device_key);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SERVICE_TASK_SPEC_H_
