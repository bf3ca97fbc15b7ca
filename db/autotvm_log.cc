#include "db/autotvm_log.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "db/json.h"

namespace tunefarm::db {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Value;

// TVM task names per template; the first one is what a template exports as.
struct TaskMapping {
  const char* template_name;
  const char* tasks[4];
};
constexpr TaskMapping kTaskTable[] = {
    {"dense", {"dense_nopack.x86", "dense_pack.x86", "dense_small_batch.gpu", "dense.cuda"}},
    {"conv2d", {"conv2d_NCHWc.x86", "conv2d_nchw.x86", "conv2d_nchw.cuda", nullptr}},
    {"batch_matmul", {"batch_matmul.x86", "batch_matmul.cuda", nullptr, nullptr}},
    {"depthwise",
     {"depthwise_conv2d_NCHWc.x86", "depthwise_conv2d_nchw.x86", "depthwise_conv2d_nchw.cuda",
      nullptr}},
};

// Config JSON key that keeps a non-default TVM task name.
constexpr char kTaskKey[] = "_autotvm_task";
// Extra top-level key TVM ignores.
constexpr char kExtraKey[] = "tunefarm";
// TVM writes this cost for failed measurements.
constexpr double kTvmErrorCost = 1e9;
constexpr char kTvmVersion[] = "0.8.0";
constexpr double kLogVersion = 0.2;
// Longest problem text kept in an import report.
constexpr size_t kMaxProblemChars = 160;

// TVM MeasureErrorNo for each ErrorClass (out-of-memory is TVM's RUNTIME_DEVICE; device_lost
// has no TVM equivalent: UNKNOWN_ERROR).
int TvmErrorNo(ErrorClass e) {
  switch (e) {
    case ErrorClass::kOk:
      return 0;
    case ErrorClass::kInvalidConfig:
      return 1;
    case ErrorClass::kBuildError:
      return 2;
    case ErrorClass::kLoadError:
      return 3;
    case ErrorClass::kRuntimeError:
    case ErrorClass::kOutOfMemory:
      return 4;
    case ErrorClass::kWrongAnswer:
      return 5;
    case ErrorClass::kBuildTimeout:
      return 6;
    case ErrorClass::kRunTimeout:
      return 7;
    case ErrorClass::kDeviceLost:
    case ErrorClass::kUnknown:
      return 8;
  }
  return 8;
}

absl::StatusOr<ErrorClass> ErrorFromTvm(double error_no) {
  constexpr ErrorClass kFromTvm[] = {
      ErrorClass::kOk,           ErrorClass::kInvalidConfig, ErrorClass::kBuildError,
      ErrorClass::kLoadError,    ErrorClass::kRuntimeError,  ErrorClass::kWrongAnswer,
      ErrorClass::kBuildTimeout, ErrorClass::kRunTimeout,    ErrorClass::kUnknown,
  };
  if (error_no != std::trunc(error_no) || error_no < 0 || error_no > 8) {
    return absl::InvalidArgumentError(
        absl::StrCat("result[1]: error number ", error_no, " is not a TVM MeasureErrorNo (0..8)"));
  }
  return kFromTvm[static_cast<int>(error_no)];
}

Value Str(absl::string_view s) {
  Value v;
  v.set_string_value(std::string(s));
  return v;
}
Value Num(double d) {
  Value v;
  v.set_number_value(d);
  return v;
}
Value Null() {
  Value v;
  v.set_null_value(google::protobuf::NULL_VALUE);
  return v;
}
Value List(std::vector<Value> items) {
  Value v;
  ListValue* list = v.mutable_list_value();
  for (Value& item : items) *list->add_values() = std::move(item);
  return v;
}
Value NumList(const std::vector<double>& xs) {
  std::vector<Value> items;
  for (double x : xs) items.push_back(Num(x));
  return List(std::move(items));
}

absl::Status Malformed(absl::string_view why) { return absl::InvalidArgumentError(why); }

// Field `key` of object `v`, or null if missing.
const Value* Field(const Value& v, absl::string_view key) {
  if (!v.has_struct_value()) return nullptr;
  auto it = v.struct_value().fields().find(std::string(key));
  return it == v.struct_value().fields().end() ? nullptr : &it->second;
}

bool IsNumber(const Value* v) { return v != nullptr && v->kind_case() == Value::kNumberValue; }
bool IsString(const Value* v) { return v != nullptr && v->kind_case() == Value::kStringValue; }
bool IsList(const Value* v) { return v != nullptr && v->has_list_value(); }

// Dense: our [M,N,K,dtype] <-> TVM [["TENSOR",[M,K],dt],["TENSOR",[N,K],dt],null,dt].
bool DenseToTvm(const Value& args, Value* out) {
  const auto& a = args.list_value().values();
  if (a.size() != 4) return false;
  for (int i = 0; i < 3; ++i) {
    if (a[i].kind_case() != Value::kNumberValue) return false;
  }
  if (a[3].kind_case() != Value::kStringValue) return false;
  const Value& dt = a[3];
  *out = List({List({Str("TENSOR"), List({a[0], a[2]}), dt}),
               List({Str("TENSOR"), List({a[1], a[2]}), dt}), Null(), dt});
  return true;
}

bool DenseFromTvm(const Value& tvm_args, Value* out, double* flop) {
  if (!tvm_args.has_list_value()) return false;
  const auto& a = tvm_args.list_value().values();
  if (a.size() != 4) return false;
  auto tensor2d = [](const Value& t, double* rows, double* cols, std::string* dtype) {
    if (!t.has_list_value() || t.list_value().values_size() != 3) return false;
    const auto& f = t.list_value().values();
    if (f[0].string_value() != "TENSOR" || !f[1].has_list_value() ||
        f[1].list_value().values_size() != 2 || f[2].kind_case() != Value::kStringValue) {
      return false;
    }
    const auto& shape = f[1].list_value().values();
    if (shape[0].kind_case() != Value::kNumberValue || shape[1].kind_case() != Value::kNumberValue)
      return false;
    *rows = shape[0].number_value();
    *cols = shape[1].number_value();
    *dtype = f[2].string_value();
    return true;
  };
  double m, k, n, k2;
  std::string dt_a, dt_b;
  if (!tensor2d(a[0], &m, &k, &dt_a) || !tensor2d(a[1], &n, &k2, &dt_b)) return false;
  if (k != k2 || dt_a != dt_b || a[2].kind_case() != Value::kNullValue ||
      a[3].kind_case() != Value::kStringValue) {
    return false;
  }
  *out = List({Num(m), Num(n), Num(k), a[3]});
  *flop = 2 * m * n * k;
  return true;
}

// TVM knob type of a config value (see header).
const char* KnobType(const Value& v) {
  if (v.kind_case() == Value::kStringValue) return "an";
  if (!v.has_list_value()) return "ot";
  const auto& items = v.list_value().values();
  bool all_numbers = !items.empty();
  bool all_strings = !items.empty();
  for (const Value& e : items) {
    all_numbers &= e.kind_case() == Value::kNumberValue;
    all_strings &= e.kind_case() == Value::kStringValue;
  }
  if (all_strings) return "an";
  if (!all_numbers) return "ot";
  if (items[0].number_value() == -1) return "sp";
  std::vector<bool> seen(items.size(), false);
  for (const Value& e : items) {
    double x = e.number_value();
    if (x < 0 || x >= static_cast<double>(items.size()) || x != std::trunc(x) ||
        seen[static_cast<size_t>(x)]) {
      return "ot";
    }
    seen[static_cast<size_t>(x)] = true;
  }
  return "re";
}

absl::Status ApplyExtra(const Value& extra, Record* r) {
  auto text = [&](const char* key, std::string* out) -> absl::Status {
    const Value* v = Field(extra, key);
    if (v == nullptr) return absl::OkStatus();
    if (!IsString(v)) return Malformed(absl::StrCat("tunefarm.", key, ": expected a string"));
    *out = v->string_value();
    return absl::OkStatus();
  };
  auto number = [&](const char* key, double* out) -> absl::Status {
    const Value* v = Field(extra, key);
    if (v == nullptr) return absl::OkStatus();
    if (!IsNumber(v)) return Malformed(absl::StrCat("tunefarm.", key, ": expected a number"));
    *out = v->number_value();
    return absl::OkStatus();
  };
  std::string error_name;
  double job_id = static_cast<double>(r->job_id), cores = r->device.cores;
  for (absl::Status s :
       {text("template", &r->workload.template_name), text("device_key", &r->device_key),
        text("error", &error_name), text("error_message", &r->error_message),
        text("tuner_version", &r->tuner_version), text("cpu_model", &r->device.cpu_model),
        text("gpu_model", &r->device.gpu_model), text("driver_version", &r->device.driver_version),
        text("compiler_version", &r->device.compiler_version), number("flop", &r->workload.flop),
        number("job_id", &job_id), number("cores", &cores)}) {
    if (!s.ok()) return s;
  }
  r->job_id = static_cast<int64_t>(job_id);
  r->device.cores = static_cast<int>(cores);
  if (const Value* args = Field(extra, "args"); args != nullptr) {
    if (!IsList(args)) return Malformed("tunefarm.args: expected an array");
    r->workload.args = CanonicalJson(*args);
  }
  if (!error_name.empty()) {
    absl::StatusOr<ErrorClass> e = ErrorClassFromName(error_name);
    if (!e.ok()) return Malformed(absl::StrCat("tunefarm.error: ", e.status().message()));
    r->error = *e;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> TemplateForAutotvmTask(absl::string_view task_name) {
  for (const TaskMapping& m : kTaskTable) {
    for (const char* task : m.tasks) {
      if (task != nullptr && task_name == task) return std::string(m.template_name);
    }
  }
  return absl::NotFoundError(absl::StrCat("unknown AutoTVM task '", task_name, "'"));
}

absl::StatusOr<std::string> AutotvmTaskForTemplate(absl::string_view template_name) {
  for (const TaskMapping& m : kTaskTable) {
    if (template_name == m.template_name) return std::string(m.tasks[0]);
  }
  return absl::NotFoundError(
      absl::StrCat("template '", template_name, "' has no AutoTVM task name"));
}

absl::StatusOr<Record> ParseAutotvmLine(absl::string_view line,
                                        const AutotvmImportOptions& options) {
  absl::StatusOr<Value> root = ParseJson(line);
  if (!root.ok()) return root.status();
  if (!root->has_struct_value()) return Malformed("not a JSON object");
  const Value* input = Field(*root, "input");
  const Value* config = Field(*root, "config");
  const Value* result = Field(*root, "result");
  if (!IsList(input) || input->list_value().values_size() < 3) {
    return Malformed("input: expected [target, task, args, kwargs]");
  }
  if (config == nullptr || !config->has_struct_value()) return Malformed("config: expected object");
  if (!IsList(result) || result->list_value().values_size() < 4) {
    return Malformed("result: expected [costs, error_no, all_cost, timestamp]");
  }
  const auto& in = input->list_value().values();
  const auto& res = result->list_value().values();
  if (in[0].kind_case() != Value::kStringValue || in[0].string_value().empty()) {
    return Malformed("input[0]: expected a target string");
  }
  if (in[1].kind_case() != Value::kStringValue) return Malformed("input[1]: expected a task name");
  if (!in[2].has_list_value()) return Malformed("input[2]: expected an argument list");

  Record r;
  r.target = in[0].string_value();
  r.device_key = options.device_key;
  r.tuner_version = options.tuner_version;

  // Config: index and entity.
  const Value* index = Field(*config, "index");
  const Value* entity = Field(*config, "entity");
  if (!IsNumber(index) || index->number_value() != std::trunc(index->number_value())) {
    return Malformed("config.index: expected an integer");
  }
  r.config_index = static_cast<int64_t>(index->number_value());
  if (!IsList(entity)) return Malformed("config.entity: expected a list");
  Value knobs;
  auto* fields = knobs.mutable_struct_value()->mutable_fields();
  for (const Value& knob : entity->list_value().values()) {
    if (!knob.has_list_value() || knob.list_value().values_size() != 3 ||
        knob.list_value().values(0).kind_case() != Value::kStringValue) {
      return Malformed("config.entity: expected [name, type, value] items");
    }
    (*fields)[knob.list_value().values(0).string_value()] = knob.list_value().values(2);
  }

  // Result: costs, error number, timestamp.
  if (!res[0].has_list_value()) return Malformed("result[0]: expected a list of costs");
  if (res[1].kind_case() != Value::kNumberValue) return Malformed("result[1]: expected a number");
  if (res[3].kind_case() != Value::kNumberValue) return Malformed("result[3]: expected a time");
  absl::StatusOr<ErrorClass> error = ErrorFromTvm(res[1].number_value());
  if (!error.ok()) return error.status();
  r.error = *error;
  r.timestamp = res[3].number_value();
  for (const Value& c : res[0].list_value().values()) {
    if (c.kind_case() != Value::kNumberValue) {
      // TVM writes exception text into costs of some failed results; drop it.
      if (r.error == ErrorClass::kOk) return Malformed("result[0]: expected numeric costs");
      continue;
    }
    r.costs.push_back(c.number_value());
  }
  if (r.error != ErrorClass::kOk) r.costs.clear();

  // Workload: template from the task name (or the extra), args converted for dense.
  const Value* extra = Field(*root, kExtraKey);
  if (extra != nullptr && !extra->has_struct_value()) return Malformed("tunefarm: expected object");
  absl::StatusOr<std::string> template_name = TemplateForAutotvmTask(in[1].string_value());
  if (template_name.ok()) {
    r.workload.template_name = *template_name;
    absl::StatusOr<std::string> default_task = AutotvmTaskForTemplate(*template_name);
    if (default_task.ok() && *default_task != in[1].string_value()) {
      (*fields)[kTaskKey] = Str(in[1].string_value());
    }
  } else if (extra == nullptr || Field(*extra, "template") == nullptr) {
    return template_name.status();
  }
  Value args;
  if (r.workload.template_name == "dense" && DenseFromTvm(in[2], &args, &r.workload.flop)) {
    r.workload.args = CanonicalJson(args);
  } else {
    r.workload.args = CanonicalJson(in[2]);
  }
  if (extra != nullptr) {
    if (absl::Status s = ApplyExtra(*extra, &r); !s.ok()) return s;
  }
  r.config_json = CanonicalJson(knobs);
  if (absl::Status s = ValidateRecord(r); !s.ok()) return Malformed(s.message());
  return r;
}

absl::StatusOr<std::string> FormatAutotvmLine(const Record& r) {
  absl::StatusOr<Value> knobs = ParseJson(r.config_json);
  if (!knobs.ok() || !knobs->has_struct_value()) {
    return absl::InvalidArgumentError(absl::StrCat("record ", r.id, ": config is not an object"));
  }
  absl::StatusOr<std::string> task = AutotvmTaskForTemplate(r.workload.template_name);
  if (!task.ok()) return task.status();
  absl::StatusOr<Value> args = ParseJson(r.workload.args);
  if (!args.ok() || !args->has_list_value()) {
    return absl::InvalidArgumentError(absl::StrCat("record ", r.id, ": args are not an array"));
  }

  // Entity in knob-name order (canonical), the TVM task override pulled out.
  std::vector<std::pair<std::string, const Value*>> sorted;
  for (const auto& [name, value] : knobs->struct_value().fields()) {
    if (name == kTaskKey) {
      if (value.kind_case() == Value::kStringValue) *task = value.string_value();
      continue;
    }
    sorted.emplace_back(name, &value);
  }
  std::sort(sorted.begin(), sorted.end());
  std::vector<Value> entity;
  for (const auto& [name, value] : sorted) {
    entity.push_back(List({Str(name), Str(KnobType(*value)), *value}));
  }
  Value tvm_args;
  if (r.workload.template_name != "dense" || !DenseToTvm(*args, &tvm_args)) tvm_args = *args;

  Value root;
  auto* f = root.mutable_struct_value()->mutable_fields();
  Value kwargs;
  kwargs.mutable_struct_value();
  (*f)["input"] = List({Str(r.target), Str(*task), tvm_args, kwargs});
  Value config;
  auto* cf = config.mutable_struct_value()->mutable_fields();
  (*cf)["index"] = Num(static_cast<double>(r.config_index));
  (*cf)["code_hash"] = Null();
  (*cf)["entity"] = List(std::move(entity));
  (*f)["config"] = std::move(config);
  double all_cost = 0;
  for (double c : r.costs) all_cost += c;
  (*f)["result"] = List({r.error == ErrorClass::kOk ? NumList(r.costs) : NumList({kTvmErrorCost}),
                         Num(TvmErrorNo(r.error)), Num(all_cost), Num(r.timestamp)});
  (*f)["version"] = Num(kLogVersion);
  (*f)["tvm_version"] = Str(kTvmVersion);

  Value extra;
  auto* ef = extra.mutable_struct_value()->mutable_fields();
  (*ef)["template"] = Str(r.workload.template_name);
  (*ef)["args"] = *args;
  (*ef)["flop"] = Num(r.workload.flop);
  (*ef)["device_key"] = Str(r.device_key);
  (*ef)["error"] = Str(ErrorClassName(r.error));
  (*ef)["error_message"] = Str(r.error_message);
  (*ef)["tuner_version"] = Str(r.tuner_version);
  (*ef)["job_id"] = Num(static_cast<double>(r.job_id));
  (*ef)["cpu_model"] = Str(r.device.cpu_model);
  (*ef)["gpu_model"] = Str(r.device.gpu_model);
  (*ef)["cores"] = Num(r.device.cores);
  (*ef)["driver_version"] = Str(r.device.driver_version);
  (*ef)["compiler_version"] = Str(r.device.compiler_version);
  (*f)[kExtraKey] = std::move(extra);
  return CanonicalJson(root);
}

absl::StatusOr<AutotvmImportReport> ImportAutotvmLog(std::istream& in, TuningLog& log,
                                                     const AutotvmImportOptions& options) {
  AutotvmImportReport report;
  std::vector<Record> batch;
  auto flush = [&]() -> absl::Status {
    if (batch.empty()) return absl::OkStatus();
    absl::StatusOr<std::vector<int64_t>> ids = log.Insert(batch);
    if (!ids.ok()) return ids.status();
    report.imported += static_cast<int64_t>(batch.size());
    batch.clear();
    return absl::OkStatus();
  };
  std::string line;
  int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    ++report.lines;
    absl::StatusOr<Record> record = ParseAutotvmLine(line, options);
    if (!record.ok()) {
      if (absl::IsNotFound(record.status())) {
        ++report.unknown_template;
      } else {
        ++report.malformed;
      }
      if (static_cast<int>(report.problems.size()) < AutotvmImportReport::kMaxProblems) {
        // One line per problem: parser messages may span lines and quote the whole input.
        std::string why(record.status().message());
        absl::StrReplaceAll({{"\n", " "}}, &why);
        if (why.size() > kMaxProblemChars)
          why = absl::StrCat(why.substr(0, kMaxProblemChars), "...");
        report.problems.push_back(absl::StrCat("line ", line_no, ": ", why));
      }
      continue;
    }
    batch.push_back(*std::move(record));
    if (static_cast<int>(batch.size()) >= options.batch_size) {
      if (absl::Status s = flush(); !s.ok()) return s;
    }
  }
  if (absl::Status s = flush(); !s.ok()) return s;
  return report;
}

absl::StatusOr<int64_t> ExportAutotvmLog(const TuningLog& log, const RecordFilter& filter,
                                         std::ostream& out, int64_t* skipped) {
  int64_t written = 0, skipped_count = 0;
  absl::Status s = log.ForEachRecord(filter, [&](const Record& r) -> absl::Status {
    absl::StatusOr<std::string> line = FormatAutotvmLine(r);
    if (absl::IsNotFound(line.status())) {
      ++skipped_count;
      return absl::OkStatus();
    }
    if (!line.ok()) return line.status();
    out << *line << '\n';
    if (!out) return absl::InternalError("export-log: write failed");
    ++written;
    return absl::OkStatus();
  });
  if (skipped != nullptr) *skipped = skipped_count;
  if (!s.ok()) return s;
  return written;
}

}  // namespace tunefarm::db
