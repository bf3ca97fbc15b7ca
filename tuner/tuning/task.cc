#include "tuner/tuning/task.h"

#include "absl/status/status.h"
#include "tuner/templates/registry.h"

namespace tunefarm::tuner {

db::Workload TuneTask::DbWorkload() const {
  db::Workload w;
  w.template_name = workload.template_name;
  w.args = workload.ArgsJson();
  w.flop = workload.flop;
  return w;
}

absl::StatusOr<TuneTask> MakeTask(const std::string& template_name,
                                  const std::vector<int64_t>& args, const std::string& dtype,
                                  const std::string& target, const std::string& device_key) {
  TuneTask task;
  auto t = FindTemplate(template_name);
  if (!t.ok()) return t.status();
  task.tmpl = *t;
  auto dt = ir::ParseDataType(dtype);
  if (!dt.ok()) return dt.status();
  auto w = task.tmpl->MakeWorkload(args, *dt);
  if (!w.ok()) return w.status();
  task.workload = *w;
  auto tg = codegen::ParseTarget(target.empty() ? "llvm" : target);
  if (!tg.ok()) return tg.status();
  task.target = *tg;
  if (device_key.empty()) return absl::InvalidArgumentError("empty device key");
  task.device_key = device_key;
  auto space = std::make_shared<ConfigSpace>();
  if (absl::Status s = task.tmpl->DefineSpace(task.workload, task.target, space.get()); !s.ok()) {
    return s;
  }
  task.space = std::move(space);
  return task;
}

}  // namespace tunefarm::tuner
