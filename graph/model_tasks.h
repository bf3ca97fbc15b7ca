// The tuning tasks of a model: one per distinct fused-group program (program text and shapes),
// weighted by how many times the model runs it, as TVM extracts a network's tasks; a group
// with alternative algorithms (Winograd) has a task for each, and the compiled model runs the
// fastest tuned one. A model's
// tuning job is one multi-task job of these.
#ifndef TUNEFARM_GRAPH_MODEL_TASKS_H_
#define TUNEFARM_GRAPH_MODEL_TASKS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/prepare_model.h"
#include "proto/job.pb.h"
#include "tuner/tuning/task.h"

namespace tunefarm::graph {

struct ModelTask {
  // The job's task: the program, its name, shapes and weight (the count of groups running it).
  v1::TaskSpec spec;
  // The task as the tuner builds it (workload name, FLOPs, space).
  tuner::TuneTask task;
  // Indices of the model's groups that run it.
  std::vector<int> groups;
  // Which of each group's programs it is: 0 the group's program, k its alternative k - 1.
  int variant = 0;
};

// The tasks of `model` for `target`. InvalidArgument: a group's program that the language
// rejects (an internal error of the graph layer: the message has the program's line and
// column), a bad target.
absl::StatusOr<std::vector<ModelTask>> ModelTasks(const PreparedModel& model,
                                                  const std::string& target,
                                                  const std::string& device_key);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_MODEL_TASKS_H_
