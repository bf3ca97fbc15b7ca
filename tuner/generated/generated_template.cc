#include "tuner/generated/generated_template.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tuner/generated/generated_space.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

class GeneratedTemplate : public Template {
 public:
  explicit GeneratedTemplate(const Template* base)
      : base_(base), name_(absl::StrCat(kGeneratedPrefix, base->name())) {}

  std::string name() const override { return name_; }
  std::string args_doc() const override { return base_->args_doc(); }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& args,
                                        ir::DataType dtype) const override {
    absl::StatusOr<Workload> w = base_->MakeWorkload(args, dtype);
    if (!w.ok()) return w;
    w->template_name = name_;
    return w;
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    absl::StatusOr<Instance> plain = Plain(w, target);
    if (!plain.ok()) return plain.status();
    return DefineGeneratedSpace(plain->args, target, space);
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    absl::StatusOr<Instance> plain = Plain(w, target);
    if (!plain.ok() || config == nullptr) return plain;
    absl::StatusOr<Instance> g = ApplyGeneratedSchedule(plain->args, target, *config);
    if (!g.ok()) return TemplateError(name_, g.status());
    return g;
  }

 private:
  absl::StatusOr<Instance> Plain(Workload w, const codegen::Target& target) const {
    w.template_name = base_->name();
    return base_->Instantiate(w, target, nullptr);
  }

  const Template* base_;
  std::string name_;
};

}  // namespace

std::shared_ptr<const Template> WithGeneratedSpace(const Template* base) {
  return std::make_shared<GeneratedTemplate>(base);
}

}  // namespace tunefarm::tuner
