// A tuning task: one workload of one template on one target and device key.
#ifndef TUNEFARM_TUNER_TUNING_TASK_H_
#define TUNEFARM_TUNER_TUNING_TASK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "db/record.h"
#include "tuner/space/config_space.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

struct TuneTask {
  const Template* tmpl = nullptr;
  Workload workload;
  codegen::Target target;
  // Queue key of the devices that measure it, e.g. "cpu-znver4".
  std::string device_key;
  // The template's knobs for this workload and target.
  std::shared_ptr<const ConfigSpace> space;

  // The workload as the tuning log names it.
  db::Workload DbWorkload() const;
};

// Looks up the template, validates the shape and dtype, parses the target and defines the
// space. InvalidArgument: unknown template, bad shape or dtype, bad target, empty device key.
absl::StatusOr<TuneTask> MakeTask(const std::string& template_name,
                                  const std::vector<int64_t>& args, const std::string& dtype,
                                  const std::string& target, const std::string& device_key);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_TASK_H_
