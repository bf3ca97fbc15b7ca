#include "graph/model_tasks.h"

#include <map>

#include "absl/strings/str_cat.h"

namespace tunefarm::graph {

absl::StatusOr<std::vector<ModelTask>> ModelTasks(const PreparedModel& model,
                                                  const std::string& target,
                                                  const std::string& device_key) {
  std::vector<ModelTask> tasks;
  std::map<std::pair<std::string, std::string>, size_t> index;
  auto add = [&](const GroupProgram& p, int group, int variant) -> absl::Status {
    if (p.text.empty()) return absl::OkStatus();
    absl::StatusOr<tuner::TuneTask> task =
        tuner::MakeProgramTask(p.name, p.text, p.shapes, target, device_key);
    if (!task.ok()) {
      return absl::Status(task.status().code(),
                          absl::StrCat("group ", group, " (", p.name,
                                       "): ", task.status().message(), "\nits program:\n", p.text));
    }
    const db::Workload w = task->DbWorkload();
    const auto key = std::make_pair(w.template_name, w.args);
    auto it = index.find(key);
    if (it != index.end()) {
      ModelTask& t = tasks[it->second];
      t.spec.set_weight(t.spec.weight() + 1);
      t.groups.push_back(group);
      return absl::OkStatus();
    }
    ModelTask t;
    t.spec.set_program(p.text);
    t.spec.set_program_name(p.name.substr(0, 64));
    for (const auto& [name, value] : p.shapes) (*t.spec.mutable_shapes())[name] = value;
    t.spec.set_weight(1);
    t.task = *std::move(task);
    t.groups.push_back(group);
    t.variant = variant;
    index[key] = tasks.size();
    tasks.push_back(std::move(t));
    return absl::OkStatus();
  };
  for (size_t i = 0; i < model.programs.size(); ++i) {
    if (absl::Status s = add(model.programs[i], static_cast<int>(i), 0); !s.ok()) return s;
    if (i >= model.alternatives.size()) continue;
    for (size_t k = 0; k < model.alternatives[i].size(); ++k) {
      absl::Status s = add(model.alternatives[i][k], static_cast<int>(i), static_cast<int>(k) + 1);
      if (!s.ok()) return s;
    }
  }
  return tasks;
}

}  // namespace tunefarm::graph
