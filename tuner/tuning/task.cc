#include "tuner/tuning/task.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "db/json.h"
#include "tuner/generated/generated_template.h"
#include "tuner/generated/program_template.h"
#include "tuner/templates/registry.h"

namespace tunefarm::tuner {

db::Workload TuneTask::DbWorkload() const {
  db::Workload w;
  w.template_name = workload.template_name;
  w.args = workload.ArgsJson();
  w.flop = workload.flop;
  return w;
}

namespace {

// A registry template, not owned (the registry outlives every task).
std::shared_ptr<const Template> Unowned(const Template* t) {
  return std::shared_ptr<const Template>(std::shared_ptr<const Template>(), t);
}

// The rest of MakeTask once the template is known.
absl::StatusOr<TuneTask> CompleteTask(std::shared_ptr<const Template> tmpl,
                                      const std::vector<int64_t>& args, const std::string& dtype,
                                      const std::string& target, const std::string& device_key) {
  TuneTask task;
  task.tmpl = std::move(tmpl);
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

}  // namespace

absl::StatusOr<TuneTask> MakeTask(const std::string& template_name,
                                  const std::vector<int64_t>& args, const std::string& dtype,
                                  const std::string& target, const std::string& device_key) {
  if (absl::StartsWith(template_name, kProgramPrefix)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", template_name, "' is a program; a task for it needs the program's text"));
  }
  const bool generated = absl::StartsWith(template_name, kGeneratedPrefix);
  auto t = FindTemplate(generated ? template_name.substr(kGeneratedPrefix.size()) : template_name);
  if (!t.ok()) return t.status();
  return CompleteTask(generated ? WithGeneratedSpace(*t) : Unowned(*t), args, dtype, target,
                      device_key);
}

absl::StatusOr<TuneTask> MakeProgramTask(const std::string& name, const std::string& text,
                                         const absl::flat_hash_map<std::string, int64_t>& shapes,
                                         const std::string& target, const std::string& device_key) {
  absl::StatusOr<std::shared_ptr<const ProgramTemplate>> program =
      ProgramTemplate::Create(name, text);
  if (!program.ok()) return program.status();
  absl::StatusOr<std::vector<int64_t>> args = (*program)->ArgsFor(shapes);
  if (!args.ok()) return args.status();
  absl::StatusOr<ir::DataType> dtype = (*program)->OutputType(*args);
  if (!dtype.ok()) return dtype.status();
  return CompleteTask(*program, *args, dtype->ToString(), target, device_key);
}

std::string ProgramTextOf(const TuneTask& task) {
  const auto* program = dynamic_cast<const ProgramTemplate*>(task.tmpl.get());
  return program != nullptr ? program->canonical_text() : "";
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

absl::StatusOr<TuneTask> MakeTaskFor(
    const db::Workload& workload, const std::string& target, const std::string& device_key,
    const std::function<absl::StatusOr<std::string>(const std::string& hash)>& program_text) {
  absl::StatusOr<WorkloadArgs> parsed = ParseWorkloadArgs(workload.args);
  if (!parsed.ok()) return parsed.status();
  if (!absl::StartsWith(workload.template_name, kProgramPrefix)) {
    return MakeTask(workload.template_name, parsed->args, parsed->dtype, target, device_key);
  }
  std::string name, hash;
  if (absl::Status s = ParseProgramTemplateName(workload.template_name, &name, &hash); !s.ok()) {
    return s;
  }
  if (!program_text) {
    return absl::NotFoundError(
        absl::StrCat("the text of program ", workload.template_name, " is not available here"));
  }
  absl::StatusOr<std::string> text = program_text(hash);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::shared_ptr<const ProgramTemplate>> program =
      ProgramTemplate::Create(name, *text);
  if (!program.ok()) return program.status();
  if ((*program)->name() != workload.template_name) {
    return absl::InvalidArgumentError(absl::StrCat("the stored text of ", workload.template_name,
                                                   " hashes to ", (*program)->name()));
  }
  return CompleteTask(*program, parsed->args, parsed->dtype, target, device_key);
}

}  // namespace tunefarm::tuner
