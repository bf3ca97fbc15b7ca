// The multi-task scheduler of a job: which task gets the next round of measurements.
//
// Like Ansor's task scheduler, it estimates for every task how much one more round would cut
// the job's total latency, Σ weight_i × best_cost_i, from the task's recent improvement rate
// (a finite-difference gradient over its last rounds) with an optimistic bound for tasks that
// have not improved yet, and gives the round to the task with the largest expected gain. Every
// task first gets one warm-up round. Ties go to the smaller task index, so schedules are
// deterministic.
#ifndef TUNEFARM_TUNER_SERVICE_TASK_SCHEDULER_H_
#define TUNEFARM_TUNER_SERVICE_TASK_SCHEDULER_H_

#include <vector>

namespace tunefarm::tuner {

class TaskScheduler {
 public:
  // `weights`: how often each task's operator runs per inference.
  explicit TaskScheduler(std::vector<double> weights, int window = 3);

  // The task for the next round among those not `done`; -1 when all are done.
  int Pick(const std::vector<bool>& done) const;
  // Records a finished round of `task` with its best cost afterwards (+inf: nothing valid yet)
  // and the trials it used. Recording a task before its first pick (the measurements a log
  // already holds for it) stands for its warm-up round.
  void Record(int task, double best_cost_s, int trials);

 private:
  // Expected reduction of weighted latency per trial spent on `task`.
  double Gain(int task) const;

  std::vector<double> weights_;
  int window_;
  // Per task: best cost after each of its rounds, and cumulative trials.
  std::vector<std::vector<double>> best_;
  std::vector<std::vector<int>> trials_;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SERVICE_TASK_SCHEDULER_H_
