// Fuzz target: a job spec as the job service receives it over gRPC (serialized protobuf),
// through the adapter that turns each task into a tuning task: template lookup, shape, dtype
// and target validation, config space. Any bytes give tasks or a status, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "proto/job.pb.h"
#include "tuner/tuning/task.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tunefarm::v1::JobSpec spec;
  if (!spec.ParseFromArray(data, static_cast<int>(size))) return 0;
  int tasks = 0;
  for (const tunefarm::v1::TaskSpec& t : spec.tasks()) {
    if (++tasks > 8) break;  // the service bounds tasks per job; a few exercise the adapter
    std::vector<int64_t> args(t.args().begin(), t.args().end());
    auto task = tunefarm::tuner::MakeTask(t.template_name(), args,
                                          t.dtype().empty() ? "float32" : t.dtype(), spec.target(),
                                          spec.device_key().empty() ? "cpu" : spec.device_key());
    if (task.ok() && task->space->size() > 0) (void)task->space->Get(task->space->size() - 1);
  }
  return 0;
}
