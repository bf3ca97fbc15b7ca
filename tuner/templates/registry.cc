#include "tuner/templates/registry.h"

#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace tunefarm::tuner {
namespace {

// The one process-wide registry: registration happens during static initialization, before
// any job exists, so it cannot be passed in.
struct Registry {
  absl::Mutex mu;
  std::map<std::string, std::unique_ptr<Template>> templates ABSL_GUARDED_BY(mu);
};

Registry& GetRegistry() {
  static Registry* r = new Registry();
  return *r;
}

}  // namespace

bool RegisterTemplate(std::unique_ptr<Template> t) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  std::string name = t->name();
  r.templates[name] = std::move(t);
  return true;
}

absl::StatusOr<const Template*> FindTemplate(const std::string& name) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.templates.find(name);
  if (it == r.templates.end()) {
    std::vector<std::string> names;
    for (const auto& [n, t] : r.templates) names.push_back(n);
    return absl::InvalidArgumentError(
        absl::StrCat("unknown template '", name, "' (known: ", absl::StrJoin(names, ", "), ")"));
  }
  return it->second.get();
}

std::vector<std::string> TemplateNames() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  std::vector<std::string> names;
  for (const auto& [n, t] : r.templates) names.push_back(n);
  return names;
}

absl::StatusOr<Workload> MakeWorkload(const std::string& template_name,
                                      const std::vector<int64_t>& args, ir::DataType dtype) {
  auto t = FindTemplate(template_name);
  if (!t.ok()) return t.status();
  return (*t)->MakeWorkload(args, dtype);
}

std::string Workload::ArgsJson() const {
  return absl::StrCat("[", absl::StrJoin(args, ","), ",\"", dtype.ToString(), "\"]");
}

std::string Workload::ToString() const {
  return absl::StrCat(template_name, "[", absl::StrJoin(args, ","), ",", dtype.ToString(), "]");
}

}  // namespace tunefarm::tuner
