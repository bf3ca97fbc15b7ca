#include "db/autotvm_log.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "db/json.h"

namespace tunefarm::db {
namespace {

using google::protobuf::Value;

// Extra top-level key TVM ignores.
constexpr char kExtraKey[] = "tunefarm";
// TVM writes this cost for failed measurements.
constexpr double kTvmErrorCost = 1e9;
constexpr char kTvmVersion[] = "0.8.0";
constexpr double kLogVersion = 0.2;
// Longest problem text kept in an import report.
constexpr size_t kMaxProblemChars = 160;
// Largest TVM config index (and job id) read: every integer up to it is exact in a JSON number
// (a double), and so is -1 - it, the index of an untranslated config.
constexpr int64_t kMaxIndex = (int64_t{1} << 53) - 1;

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

Value Str(absl::string_view s) { return JsonString(s); }
Value Num(double d) { return JsonNumber(d); }
Value Null() { return JsonNull(); }
Value List(std::vector<Value> items) { return JsonList(std::move(items)); }
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

bool IsBool(const Value* v) { return v != nullptr && v->kind_case() == Value::kBoolValue; }

// The value of a JSON number that is an integer in [lo, hi]. InvalidArgument naming `what`:
// anything else (a fraction, 1e300, inf, ...), which no cast may see.
absl::StatusOr<int64_t> IntegerIn(const Value* v, absl::string_view what, int64_t lo, int64_t hi) {
  if (!IsNumber(v)) return Malformed(absl::StrCat(what, ": expected an integer"));
  const double d = v->number_value();
  if (!std::isfinite(d) || d != std::trunc(d) || d < static_cast<double>(lo) ||
      d > static_cast<double>(hi)) {
    return Malformed(absl::StrCat(what, ": ", d, " is not an integer in [", lo, ", ", hi, "]"));
  }
  return static_cast<int64_t>(d);
}

// TVM's entity `entity`: a list of [name, type, value] with a string name that is no
// provenance key and one of TVM's knob types. InvalidArgument naming `what`: anything else.
absl::Status ValidateEntity(const Value* entity, absl::string_view what) {
  if (!IsList(entity)) return Malformed(absl::StrCat(what, ": expected a list"));
  for (const Value& knob : entity->list_value().values()) {
    if (!knob.has_list_value() || knob.list_value().values_size() != 3 ||
        knob.list_value().values(0).kind_case() != Value::kStringValue ||
        knob.list_value().values(1).kind_case() != Value::kStringValue) {
      return Malformed(absl::StrCat(what, ": expected [name, type, value] items"));
    }
    const std::string& name = knob.list_value().values(0).string_value();
    const std::string& type = knob.list_value().values(1).string_value();
    if (IsAutotvmProvenanceKey(name)) {
      return Malformed(absl::StrCat(what, ": knob name ", name, " is reserved"));
    }
    if (!IsAutotvmKnobType(type)) {
      return Malformed(absl::StrCat(what, ": knob ", name, " has type \"", type,
                                    "\", not one of TVM's (sp, re, an, ot)"));
    }
  }
  return absl::OkStatus();
}

// The provenance keys of a config from our own export (the "tunefarm" extra): as import writes
// them. InvalidArgument: a key of the wrong type or range.
absl::Status ValidateProvenance(const Value& config) {
  for (const char* key : {kAutotvmTaskKey, kAutotvmLegacyTaskKey}) {
    if (const Value* task = Field(config, key); task != nullptr && !IsString(task)) {
      return Malformed(absl::StrCat("tunefarm.config.", key, ": expected a string"));
    }
  }
  if (const Value* index = Field(config, kAutotvmIndexKey); index != nullptr) {
    absl::StatusOr<int64_t> i =
        IntegerIn(index, absl::StrCat("tunefarm.config.", kAutotvmIndexKey), 0, kMaxIndex);
    if (!i.ok()) return i.status();
  }
  if (const Value* u = Field(config, kAutotvmUntranslatedKey); u != nullptr && !IsBool(u)) {
    return Malformed(
        absl::StrCat("tunefarm.config.", kAutotvmUntranslatedKey, ": expected a bool"));
  }
  if (const Value* e = Field(config, kAutotvmEntityKey); e != nullptr) {
    return ValidateEntity(e, absl::StrCat("tunefarm.config.", kAutotvmEntityKey));
  }
  return absl::OkStatus();
}

// {name: value} of TVM's entity, canonical.
std::string KnobsOfEntity(const Value& entity) {
  Value knobs = JsonObject();
  for (const Value& e : entity.list_value().values()) {
    (*knobs.mutable_struct_value()->mutable_fields())[e.list_value().values(0).string_value()] =
        e.list_value().values(2);
  }
  return CanonicalJson(knobs);
}

// One line of a report: "line N: why", on one line and at most kMaxProblemChars long.
std::string ReportLine(int64_t line_no, absl::string_view why) {
  std::string text(why);
  absl::StrReplaceAll({{"\n", " "}}, &text);
  if (text.size() > kMaxProblemChars) text = absl::StrCat(text.substr(0, kMaxProblemChars), "...");
  return absl::StrCat("line ", line_no, ": ", text);
}

// TVM knob type of a config value (see header).
const char* KnobType(const Value& v) {
  if (v.kind_case() == Value::kStringValue)
    return "ot";  // one option of a list (TVM's "an" values are lists)
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
  // Counts are integers in range: a cast of 1e300 or -1 would be undefined or meaningless.
  auto integer = [&](const char* key, int64_t hi, int64_t* out) -> absl::Status {
    const Value* v = Field(extra, key);
    if (v == nullptr) return absl::OkStatus();
    absl::StatusOr<int64_t> i = IntegerIn(v, absl::StrCat("tunefarm.", key), 0, hi);
    if (!i.ok()) return i.status();
    *out = *i;
    return absl::OkStatus();
  };
  auto flop = [&]() -> absl::Status {
    const Value* v = Field(extra, "flop");
    if (v == nullptr) return absl::OkStatus();
    if (!IsNumber(v) || !std::isfinite(v->number_value()) || v->number_value() < 0) {
      return Malformed("tunefarm.flop: expected a finite number >= 0");
    }
    r->workload.flop = v->number_value();
    return absl::OkStatus();
  };
  std::string error_name;
  int64_t cores = r->device.cores;
  for (absl::Status s :
       {text("template", &r->workload.template_name), text("device_key", &r->device_key),
        text("error", &error_name), text("error_message", &r->error_message),
        text("tuner_version", &r->tuner_version), text("cpu_model", &r->device.cpu_model),
        text("gpu_model", &r->device.gpu_model), text("driver_version", &r->device.driver_version),
        text("compiler_version", &r->device.compiler_version), flop(),
        integer("job_id", kMaxIndex, &r->job_id),
        integer("cores", std::numeric_limits<int>::max(), &cores)}) {
    if (!s.ok()) return s;
  }
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

// The note of a config translated approximately.
std::string ApproximateNote(absl::string_view task, int64_t tvm_index,
                            absl::string_view template_name) {
  return absl::StrCat(task, " config ", tvm_index,
                      " translated approximately (TVM's middle tiling levels have no knob in ",
                      template_name, ")");
}

// Sets the record's workload and config from TVM's task, args and knobs (no "tunefarm" extra):
// converted args and a translated config where there are, else TVM's own.
absl::Status ConvertTvmRecord(const std::string& task, const Value& tvm_args, int64_t tvm_index,
                              const Value& entity, const AutotvmImportOptions& options, Record* r,
                              AutotvmLineInfo* info) {
  absl::StatusOr<AutotvmWorkload> w = ConvertAutotvmArgs(task, tvm_args);
  if (!w.ok()) return w.status();
  r->workload.template_name = w->template_name;
  r->workload.args = w->args;
  r->workload.flop = w->flop;
  info->converted = w->converted;
  absl::StatusOr<Value> tvm_knobs = ParseJson(KnobsOfEntity(entity));
  if (!tvm_knobs.ok()) return tvm_knobs.status();
  Value config = *tvm_knobs;
  auto* fields = config.mutable_struct_value()->mutable_fields();
  absl::StatusOr<std::string> default_task = AutotvmTaskFor(w->template_name, r->target);
  const bool keep_task = !default_task.ok() || *default_task != task;
  if (!w->converted) {
    // Raw: TVM's args, index and knobs, as before any conversion existed.
    info->note = absl::StrCat(task, " args kept as TVM's: ", w->why_raw);
    r->config_index = tvm_index;
    if (keep_task) (*fields)[kAutotvmTaskKey] = Str(task);
    r->config_json = CanonicalJson(config);
    return absl::OkStatus();
  }
  // Translated into the template's space, or kept as TVM's knobs.
  absl::Status why = absl::OkStatus();
  absl::StatusOr<AutotvmTranslation> translated = TranslateAutotvmConfig(task, *w, *tvm_knobs);
  if (!translated.ok()) {
    why = translated.status();
  } else if (!options.resolve) {
    why = absl::FailedPreconditionError("no config space to resolve the translated config in");
  } else {
    absl::StatusOr<ResolvedConfig> resolved =
        options.resolve(r->workload, r->target, CanonicalJson(translated->knobs));
    if (!resolved.ok()) {
      why = resolved.status();
    } else {
      absl::StatusOr<Value> ours = ParseJson(resolved->config_json);
      if (!ours.ok() || !ours->has_struct_value()) {
        why = absl::InternalError("the resolver's config is not a JSON object");
      } else {
        auto* of = ours->mutable_struct_value()->mutable_fields();
        (*of)[kAutotvmIndexKey] = Num(static_cast<double>(tvm_index));
        if (keep_task) (*of)[kAutotvmTaskKey] = Str(task);
        // Keep TVM's entity when exporting the translation would not give it back.
        absl::StatusOr<Value> back = AutotvmEntityFor(task, w->args, *ours);
        if (!back.ok() || KnobsOfEntity(*back) != CanonicalJson(*tvm_knobs)) {
          (*of)[kAutotvmEntityKey] = entity;
        }
        r->config_index = resolved->index;
        r->config_json = CanonicalJson(*ours);
        info->translated = true;
        info->approximate = translated->approximate;
        if (translated->approximate) {
          info->note = ApproximateNote(task, tvm_index, w->template_name);
        }
        return absl::OkStatus();
      }
    }
  }
  info->note = absl::StrCat(task, " config ", tvm_index, " kept as TVM's: ", why.message());
  r->config_index = -1 - tvm_index;
  (*fields)[kAutotvmIndexKey] = Num(static_cast<double>(tvm_index));
  (*fields)[kAutotvmUntranslatedKey] = JsonBool(true);
  if (keep_task) (*fields)[kAutotvmTaskKey] = Str(task);
  r->config_json = CanonicalJson(config);
  return absl::OkStatus();
}

// What a line of our own export held, decided from its config's provenance keys and the form
// of its args as import wrote them (ConvertTvmRecord), with the notes import gave them.
// InvalidArgument: a config index that contradicts the config (a negative index marks TVM's
// knobs, and only those: a template index on TVM's knobs would be measured as a TVM pick).
absl::Status ClassifyOwnExport(const std::string& task, const Value& tvm_args, const Value& config,
                               const Record& r, AutotvmLineInfo* info) {
  const Value* untranslated = Field(config, kAutotvmUntranslatedKey);
  const bool tvm_knobs = IsBool(untranslated) && untranslated->bool_value();
  const Value* kept_index = Field(config, kAutotvmIndexKey);  // validated: in [0, kMaxIndex]
  const int64_t tvm_index =
      kept_index != nullptr ? static_cast<int64_t>(kept_index->number_value()) : r.config_index;
  if (tvm_knobs ? kept_index == nullptr || r.config_index != -1 - tvm_index : r.config_index < 0) {
    return Malformed(
        absl::StrCat("tunefarm.config_index: ", r.config_index, " contradicts the config (",
                     tvm_knobs ? "TVM's knobs are stored under -1 - tvm_index"
                               : "only a config marked tvm_untranslated has a negative index",
                     ")"));
  }
  // The template's args are exactly the ones the task's argument list is written from.
  info->converted = AutotvmArgsFor(task, r.workload.args).ok();
  if (!info->converted) {
    absl::StatusOr<AutotvmWorkload> w = ConvertAutotvmArgs(task, tvm_args);
    info->note = absl::StrCat(task, " args kept as TVM's",
                              w.ok() && !w->why_raw.empty() ? ": " : "", w.ok() ? w->why_raw : "");
    return absl::OkStatus();
  }
  info->translated = !tvm_knobs;
  if (tvm_knobs) {
    info->note = absl::StrCat(task, " config ", tvm_index, " kept as TVM's (as exported)");
  } else if (Field(config, kAutotvmEntityKey) != nullptr) {
    // Import keeps TVM's entity beside a translation that would not give it back.
    info->approximate = true;
    info->note = ApproximateNote(task, tvm_index, r.workload.template_name);
  }
  return absl::OkStatus();
}

// TVM's entity for a record's config: the kept entity, TVM's own knobs (untranslated and raw
// records), or the translation of the template's knobs back. Also says the TVM config index.
// InvalidArgument: a kept TVM index that is no index (a record stored before import checked).
absl::StatusOr<Value> EntityOf(const Record& r, const std::string& task, const Value& knobs,
                               int64_t* index) {
  *index = r.config_index;
  if (const Value* kept_index = Field(knobs, kAutotvmIndexKey); kept_index != nullptr) {
    absl::StatusOr<int64_t> i =
        IntegerIn(kept_index, absl::StrCat("record ", r.id, ": ", kAutotvmIndexKey), 0, kMaxIndex);
    if (!i.ok()) return i.status();
    *index = *i;
  }
  if (const Value* kept = Field(knobs, kAutotvmEntityKey); IsList(kept)) return *kept;
  if (Field(knobs, kAutotvmUntranslatedKey) == nullptr) {
    absl::StatusOr<Value> back = AutotvmEntityFor(task, r.workload.args, knobs);
    if (back.ok()) return *back;
  }
  // TVM's knobs (or ours, where no translation exists), types inferred, in name order.
  std::vector<std::pair<std::string, const Value*>> sorted;
  const bool ours = Field(knobs, kAutotvmUntranslatedKey) == nullptr;
  for (const auto& [name, value] : knobs.struct_value().fields()) {
    if (IsAutotvmProvenanceKey(name) || (ours && name == "index")) continue;
    sorted.emplace_back(name, &value);
  }
  std::sort(sorted.begin(), sorted.end());
  std::vector<Value> entity;
  for (const auto& [name, value] : sorted) {
    entity.push_back(List({Str(name), Str(KnobType(*value)), *value}));
  }
  return List(std::move(entity));
}

}  // namespace

bool IsAutotvmCommentOrBlank(absl::string_view line) {
  absl::string_view s = absl::StripLeadingAsciiWhitespace(line);
  return s.empty() || s[0] == '#';
}

absl::StatusOr<Record> ParseAutotvmLine(absl::string_view line, const AutotvmImportOptions& options,
                                        AutotvmLineInfo* info) {
  AutotvmLineInfo local_info;
  if (info == nullptr) info = &local_info;
  *info = AutotvmLineInfo();
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
  // TVM's indices count from 0; a negative one would pass for an untranslated config's index.
  absl::StatusOr<int64_t> tvm_index = IntegerIn(index, "config.index", 0, kMaxIndex);
  if (!tvm_index.ok()) return tvm_index.status();
  if (absl::Status s = ValidateEntity(entity, "config.entity"); !s.ok()) return s;

  // Result: costs, error number, timestamp.
  if (!res[0].has_list_value()) return Malformed("result[0]: expected a list of costs");
  if (res[1].kind_case() != Value::kNumberValue) return Malformed("result[1]: expected a number");
  if (res[3].kind_case() != Value::kNumberValue || !std::isfinite(res[3].number_value())) {
    return Malformed("result[3]: expected a time");
  }
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

  const Value* extra = Field(*root, kExtraKey);
  if (extra != nullptr && !extra->has_struct_value()) return Malformed("tunefarm: expected object");
  const Value* extra_config = extra != nullptr ? Field(*extra, "config") : nullptr;
  const Value* extra_index = extra != nullptr ? Field(*extra, "config_index") : nullptr;
  const bool own_export =
      extra_config != nullptr && IsNumber(extra_index) && extra_config->has_struct_value();
  if (own_export) {
    // Our own export: the config as it was recorded.
    absl::StatusOr<int64_t> config_index =
        IntegerIn(extra_index, "tunefarm.config_index", -1 - kMaxIndex, kMaxIndex);
    if (!config_index.ok()) return config_index.status();
    if (absl::Status s = ValidateProvenance(*extra_config); !s.ok()) return s;
    r.config_index = *config_index;
    r.config_json = CanonicalJson(*extra_config);
    absl::StatusOr<std::string> template_name = TemplateForAutotvmTask(in[1].string_value());
    if (template_name.ok()) r.workload.template_name = *template_name;
    r.workload.args = CanonicalJson(in[2]);
  } else {
    absl::Status s =
        ConvertTvmRecord(in[1].string_value(), in[2], *tvm_index, *entity, options, &r, info);
    if (absl::IsNotFound(s) && extra != nullptr && Field(*extra, "template") != nullptr) {
      // A task TVM has no name for, exported by us: the extra names the template.
      r.config_index = *tvm_index;
      r.config_json = KnobsOfEntity(*entity);
      r.workload.args = CanonicalJson(in[2]);
      info->note =
          absl::StrCat(in[1].string_value(), " is no TVM task: args and config kept as exported");
    } else if (!s.ok()) {
      return s;
    }
  }
  if (extra != nullptr) {
    if (absl::Status s = ApplyExtra(*extra, &r); !s.ok()) return s;
  }
  if (own_export) {
    if (absl::Status s = ClassifyOwnExport(in[1].string_value(), in[2], *extra_config, r, info);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = ValidateRecord(r); !s.ok()) return Malformed(s.message());
  return r;
}

absl::StatusOr<std::string> FormatAutotvmLine(const Record& r) {
  absl::StatusOr<Value> knobs = ParseJson(r.config_json);
  if (!knobs.ok() || !knobs->has_struct_value()) {
    return absl::InvalidArgumentError(absl::StrCat("record ", r.id, ": config is not an object"));
  }
  absl::StatusOr<Value> args = ParseJson(r.workload.args);
  if (!args.ok() || !args->has_list_value()) {
    return absl::InvalidArgumentError(absl::StrCat("record ", r.id, ": args are not an array"));
  }
  std::string task;
  if (const Value* kept = Field(*knobs, kAutotvmTaskKey); IsString(kept)) {
    task = kept->string_value();
  } else if (const Value* legacy = Field(*knobs, kAutotvmLegacyTaskKey); IsString(legacy)) {
    task = legacy->string_value();
  } else {
    absl::StatusOr<std::string> t = AutotvmTaskFor(r.workload.template_name, r.target);
    if (!t.ok()) return t.status();
    task = *t;
  }
  // The template's args in the task's layout; raw records already hold TVM's list.
  absl::StatusOr<Value> tvm_args = AutotvmArgsFor(task, r.workload.args);
  if (!tvm_args.ok()) tvm_args = *args;
  int64_t tvm_index = 0;
  absl::StatusOr<Value> entity = EntityOf(r, task, *knobs, &tvm_index);
  if (!entity.ok()) return entity.status();

  Value root;
  auto* f = root.mutable_struct_value()->mutable_fields();
  (*f)["input"] = List({Str(r.target), Str(task), *tvm_args, JsonObject()});
  Value config;
  auto* cf = config.mutable_struct_value()->mutable_fields();
  (*cf)["index"] = Num(static_cast<double>(tvm_index));
  (*cf)["code_hash"] = Null();
  (*cf)["entity"] = *std::move(entity);
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
  (*ef)["config"] = *knobs;
  (*ef)["config_index"] = Num(static_cast<double>(r.config_index));
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
    if (IsAutotvmCommentOrBlank(line)) {
      ++report.comments;
      continue;
    }
    ++report.lines;
    AutotvmLineInfo info;
    absl::StatusOr<Record> record = ParseAutotvmLine(line, options, &info);
    if (!record.ok()) {
      if (absl::IsNotFound(record.status())) {
        ++report.unknown_template;
      } else {
        ++report.malformed;
      }
      if (static_cast<int>(report.problems.size()) < AutotvmImportReport::kMaxProblems) {
        report.problems.push_back(ReportLine(line_no, record.status().message()));
      }
      continue;
    }
    if (!info.converted) {
      ++report.raw_args;
    } else {
      ++report.converted;
      if (info.translated) {
        ++report.translated;
        if (info.approximate) ++report.approximate;
      } else {
        ++report.untranslated;
      }
    }
    if (!info.note.empty() &&
        static_cast<int>(report.notes.size()) < AutotvmImportReport::kMaxProblems) {
      report.notes.push_back(ReportLine(line_no, info.note));
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
