#include "tuner/templates/template_util.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace tunefarm::tuner {

absl::Status CheckArgs(const std::string& template_name, const std::vector<int64_t>& args,
                       const std::string& names) {
  std::vector<std::string> n = absl::StrSplit(names, ',');
  if (args.size() != n.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        template_name, " takes ", n.size(), " shape arguments (", names, "), got ", args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(template_name, ": ", n[i], " = ", args[i], " must be positive"));
    }
    if (args[i] > (int64_t{1} << 24)) {
      return absl::InvalidArgumentError(
          absl::StrCat(template_name, ": ", n[i], " = ", args[i], " is too large"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckDtype(const std::string& template_name, ir::DataType dtype,
                        const std::vector<ir::DataType>& supported) {
  std::vector<std::string> names;
  for (const ir::DataType& d : supported) {
    if (d == dtype) return absl::OkStatus();
    names.push_back(d.ToString());
  }
  return absl::InvalidArgumentError(absl::StrCat(template_name, " does not support dtype ",
                                                 dtype.ToString(),
                                                 " (supported: ", absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<Instance> MakeInstance(std::vector<te::Tensor> args) {
  if (args.empty()) return absl::InvalidArgumentError("an instance needs tensors");
  auto sch = schedule::Schedule::Create({args.back()});
  if (!sch.ok()) return sch.status();
  Instance inst;
  inst.args = std::move(args);
  inst.sch = *std::move(sch);
  return inst;
}

absl::Status TemplateError(const std::string& template_name, const absl::Status& s) {
  // A helper shared by templates (CooperativeFetch, UnrollWindow, ...) reports its own
  // TemplateError; wrapping it again would repeat the prefix.
  const std::string prefix = absl::StrCat("template ", template_name, " built ");
  if (s.code() == absl::StatusCode::kInternal && absl::StartsWith(s.message(), prefix)) return s;
  return absl::InternalError(absl::StrCat("template ", template_name,
                                          " built an invalid program or schedule: ", s.message()));
}

}  // namespace tunefarm::tuner
