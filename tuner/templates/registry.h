// The template registry: templates register at static-initialization time (the library is
// `alwayslink`), and jobs look them up by name.
#ifndef TUNEFARM_TUNER_TEMPLATES_REGISTRY_H_
#define TUNEFARM_TUNER_TEMPLATES_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

// InvalidArgument: no template of that name (the message lists the known ones); an unknown
// template is a bad job spec.
absl::StatusOr<const Template*> FindTemplate(const std::string& name);
std::vector<std::string> TemplateNames();

// Registers `t` under t->name(); used through TF_REGISTER_TEMPLATE.
bool RegisterTemplate(std::unique_ptr<Template> t);

#define TF_REGISTER_TEMPLATE(Class)         \
  static const bool tf_registered_##Class = \
      ::tunefarm::tuner::RegisterTemplate(std::make_unique<Class>())

// Validates and builds a workload in one step: FindTemplate + MakeWorkload.
absl::StatusOr<Workload> MakeWorkload(const std::string& template_name,
                                      const std::vector<int64_t>& args, ir::DataType dtype);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_REGISTRY_H_
