#include "tuner/generated/program_template.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/lang/elaborate.h"
#include "compiler/lang/parser.h"
#include "compiler/lang/printer.h"
#include "db/record.h"
#include "tuner/generated/generated_space.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

constexpr size_t kMaxNameLength = 64;

bool ValidName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

std::string ProgramHash(absl::string_view canonical_text) {
  return absl::StrFormat("%016x", db::Fnv1a64(canonical_text));
}

absl::Status ParseProgramTemplateName(absl::string_view template_name, std::string* name,
                                      std::string* hash) {
  std::vector<std::string> parts = absl::StrSplit(template_name, ':');
  if (parts.size() != 3 || absl::StrCat(parts[0], ":") != kProgramPrefix || !ValidName(parts[1]) ||
      parts[2].size() != 16) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", template_name, "' is not a program's name (expr:NAME:HASH)"));
  }
  *name = parts[1];
  *hash = parts[2];
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const ProgramTemplate>> ProgramTemplate::Create(
    absl::string_view name, absl::string_view text) {
  if (name.empty()) name = "program";
  if (!ValidName(name)) {
    return absl::InvalidArgumentError(absl::StrCat("program name '", name, "': use 1 to ",
                                                   kMaxNameLength, " letters, digits, '_' or '-'"));
  }
  absl::StatusOr<lang::Program> parsed = lang::ParseProgram(text);
  if (!parsed.ok()) return parsed.status();
  std::shared_ptr<ProgramTemplate> t(new ProgramTemplate());
  t->program_name_ = std::string(name);
  t->canonical_ = lang::CanonicalText(*parsed);
  t->template_name_ = absl::StrCat(kProgramPrefix, name, ":", ProgramHash(t->canonical_));
  t->shape_vars_ = lang::ShapeVariables(*parsed);
  t->program_ = std::make_shared<const lang::Program>(*std::move(parsed));
  return std::shared_ptr<const ProgramTemplate>(std::move(t));
}

std::string ProgramTemplate::args_doc() const { return absl::StrJoin(shape_vars_, ","); }

absl::StatusOr<std::vector<int64_t>> ProgramTemplate::ArgsFor(
    const absl::flat_hash_map<std::string, int64_t>& shapes) const {
  std::vector<int64_t> args;
  for (const std::string& v : shape_vars_) {
    auto it = shapes.find(v);
    if (it == shapes.end()) {
      return absl::InvalidArgumentError(absl::StrCat("shape variable ", v,
                                                     " has no value; bind every one of ",
                                                     args_doc(), " (e.g. ", v, "=128)"));
    }
    args.push_back(it->second);
  }
  for (const auto& [name, value] : shapes) {
    if (std::find(shape_vars_.begin(), shape_vars_.end(), name) == shape_vars_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("'", name,
                                                     "' is not a shape variable of the program "
                                                     "(it has ",
                                                     shape_vars_.empty() ? "none" : args_doc(),
                                                     ")"));
    }
  }
  return args;
}

absl::StatusOr<std::vector<te::Tensor>> ProgramTemplate::Build(
    const std::vector<int64_t>& args, double* flop, std::vector<te::Tensor>* weights) const {
  if (args.size() != shape_vars_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(template_name_, " takes ", shape_vars_.size(),
                                                   " shape values (", args_doc(), "), got ",
                                                   args.size()));
  }
  lang::ShapeBindings shapes;
  for (size_t i = 0; i < args.size(); ++i) shapes[shape_vars_[i]] = args[i];
  absl::StatusOr<lang::ElaboratedProgram> e = lang::Elaborate(*program_, shapes);
  if (!e.ok()) return e.status();
  if (flop != nullptr) *flop = e->flop;
  if (weights != nullptr) *weights = e->weights;
  return e->args();
}

absl::StatusOr<ir::DataType> ProgramTemplate::OutputType(const std::vector<int64_t>& args) const {
  absl::StatusOr<std::vector<te::Tensor>> built = Build(args, nullptr);
  if (!built.ok()) return built.status();
  return built->back().dtype();
}

absl::StatusOr<Workload> ProgramTemplate::MakeWorkload(const std::vector<int64_t>& args,
                                                       ir::DataType dtype) const {
  double flop = 0;
  absl::StatusOr<std::vector<te::Tensor>> built = Build(args, &flop);
  if (!built.ok()) return built.status();
  if (built->back().dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(template_name_, " computes ",
                                                   built->back().dtype().ToString(), ", not ",
                                                   dtype.ToString()));
  }
  return Workload{template_name_, args, dtype, flop};
}

absl::Status ProgramTemplate::DefineSpace(const Workload& w, const codegen::Target& target,
                                          ConfigSpace* space) const {
  std::vector<te::Tensor> weights;
  absl::StatusOr<std::vector<te::Tensor>> built = Build(w.args, nullptr, &weights);
  if (!built.ok()) return built.status();
  return DefineGeneratedSpace(*built, target, space, weights);
}

absl::StatusOr<Instance> ProgramTemplate::Instantiate(const Workload& w,
                                                      const codegen::Target& target,
                                                      const Config* config) const {
  std::vector<te::Tensor> weights;
  absl::StatusOr<std::vector<te::Tensor>> built = Build(w.args, nullptr, &weights);
  if (!built.ok()) return TemplateError(template_name_, built.status());
  if (config == nullptr) return MakeInstance(*std::move(built));
  absl::StatusOr<Instance> g = ApplyGeneratedSchedule(*built, target, *config, weights);
  if (!g.ok()) return TemplateError(template_name_, g.status());
  return g;
}

}  // namespace tunefarm::tuner
