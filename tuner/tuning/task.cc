#include "tuner/tuning/task.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "db/json.h"
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

absl::StatusOr<WorkloadArgs> ParseWorkloadArgs(const std::string& args_json) {
  absl::StatusOr<google::protobuf::Value> value = db::ParseJson(args_json);
  if (!value.ok() || !value->has_list_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload args ", args_json, " are not a JSON array"));
  }
  WorkloadArgs out;
  bool have_dtype = false;
  for (const google::protobuf::Value& v : value->list_value().values()) {
    if (v.has_number_value() && !have_dtype && std::trunc(v.number_value()) == v.number_value() &&
        std::fabs(v.number_value()) < 9.0e15) {
      out.args.push_back(static_cast<int64_t>(v.number_value()));
    } else if (v.has_string_value() && !have_dtype) {
      out.dtype = v.string_value();
      have_dtype = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "workload args ", args_json, ": expected integers and then one dtype string"));
    }
  }
  return out;
}

absl::StatusOr<TuneTask> MakeTaskFor(const db::Workload& workload, const std::string& target,
                                     const std::string& device_key) {
  absl::StatusOr<WorkloadArgs> parsed = ParseWorkloadArgs(workload.args);
  if (!parsed.ok()) return parsed.status();
  return MakeTask(workload.template_name, parsed->args, parsed->dtype, target, device_key);
}

}  // namespace tunefarm::tuner
