#include "db/record.h"

#include <cmath>
#include <iterator>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "db/json.h"

namespace tunefarm::db {
namespace {

constexpr absl::string_view kErrorClassNames[] = {
    "ok",
    "invalid_config",
    "build_error",
    "load_error",
    "runtime_error",
    "wrong_answer",
    "build_timeout",
    "run_timeout",
    "device_lost",
    "unknown",
    "out_of_memory",
};

}  // namespace

uint64_t Fnv1a64(absl::string_view data) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

absl::StatusOr<Workload> Workload::Make(absl::string_view template_name, absl::string_view args,
                                        double flop) {
  if (template_name.empty()) return absl::InvalidArgumentError("workload: empty template name");
  absl::StatusOr<google::protobuf::Value> parsed = ParseJson(args);
  if (!parsed.ok() || !parsed->has_list_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload ", template_name, ": args must be a JSON array, got: ", args));
  }
  if (!(flop >= 0) || !std::isfinite(flop)) {
    return absl::InvalidArgumentError(absl::StrCat("workload ", template_name, ": bad flop"));
  }
  return Workload{std::string(template_name), CanonicalJson(*parsed), flop};
}

std::string Workload::CanonicalString() const { return absl::StrCat(template_name, "|", args); }

uint64_t Workload::Hash() const { return Fnv1a64(CanonicalString()); }

std::string DeviceFingerprint::CanonicalString() const {
  return absl::StrCat("cpu=", cpu_model, ";gpu=", gpu_model, ";cores=", cores,
                      ";driver=", driver_version, ";compiler=", compiler_version,
                      emulated ? ";emulated=1" : "");
}

uint64_t DeviceFingerprint::Hash() const { return Fnv1a64(CanonicalString()); }

bool DeviceFingerprint::operator==(const DeviceFingerprint& o) const {
  return cpu_model == o.cpu_model && gpu_model == o.gpu_model && cores == o.cores &&
         driver_version == o.driver_version && compiler_version == o.compiler_version &&
         emulated == o.emulated;
}

absl::string_view ErrorClassName(ErrorClass e) {
  int i = static_cast<int>(e);
  if (i < 0 || i >= static_cast<int>(std::size(kErrorClassNames))) return "unknown";
  return kErrorClassNames[i];
}

absl::StatusOr<ErrorClass> ErrorClassFromName(absl::string_view name) {
  for (size_t i = 0; i < std::size(kErrorClassNames); ++i) {
    if (kErrorClassNames[i] == name) return static_cast<ErrorClass>(i);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown error class '", name, "'"));
}

absl::StatusOr<ErrorClass> ErrorClassFromInt(int64_t value) {
  if (value < 0 || value >= static_cast<int64_t>(std::size(kErrorClassNames))) {
    return absl::InvalidArgumentError(absl::StrCat("error class out of range: ", value));
  }
  return static_cast<ErrorClass>(value);
}

bool Record::valid() const {
  if (error != ErrorClass::kOk || costs.empty()) return false;
  for (double c : costs) {
    if (!(c > 0) || !std::isfinite(c)) return false;
  }
  return true;
}

std::optional<double> Record::MeanCost() const {
  if (!valid()) return std::nullopt;
  double sum = 0;
  for (double c : costs) sum += c;
  return sum / static_cast<double>(costs.size());
}

double Record::Gflops() const {
  std::optional<double> mean = MeanCost();
  if (!mean.has_value() || workload.flop <= 0) return 0;
  return workload.flop / *mean / 1e9;
}

bool operator==(const Record& a, const Record& b) {
  return a.id == b.id && a.workload.template_name == b.workload.template_name &&
         a.workload.args == b.workload.args && a.workload.flop == b.workload.flop &&
         a.target == b.target && a.device_key == b.device_key && a.device == b.device &&
         a.job_id == b.job_id && a.config_index == b.config_index &&
         a.config_json == b.config_json && a.costs == b.costs && a.error == b.error &&
         a.error_message == b.error_message && a.tuner_version == b.tuner_version &&
         a.timestamp == b.timestamp && a.request_id == b.request_id && a.cold_cache == b.cold_cache;
}

absl::Status ValidateRecordFields(const Record& r) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("invalid record: ", why));
  };
  if (r.workload.template_name.empty()) return bad("empty template name");
  if (r.target.empty()) return bad("empty target");
  if (r.device_key.empty()) return bad("empty device key");
  if (r.error == ErrorClass::kOk && !r.valid()) {
    return bad("error class ok but no positive finite cost");
  }
  for (double c : r.costs) {
    if (!std::isfinite(c)) return bad("non-finite cost");
  }
  return absl::OkStatus();
}

absl::Status ValidateWorkloadArgs(absl::string_view args) {
  absl::StatusOr<std::string> canonical = CanonicalizeJson(args);
  if (!canonical.ok() || *canonical != args || args[0] != '[') {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid record: workload args are not a canonical JSON array (use Workload::Make): ",
        args));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> CanonicalConfigJson(absl::string_view config_json) {
  absl::StatusOr<google::protobuf::Value> config = ParseJson(config_json);
  if (!config.ok() || !config->has_struct_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid record: config_json is not a JSON object: ", config_json));
  }
  return CanonicalJson(*config);
}

absl::Status ValidateRecord(const Record& r) {
  if (absl::Status s = ValidateRecordFields(r); !s.ok()) return s;
  if (absl::Status s = ValidateWorkloadArgs(r.workload.args); !s.ok()) return s;
  return CanonicalConfigJson(r.config_json).status();
}

}  // namespace tunefarm::db
