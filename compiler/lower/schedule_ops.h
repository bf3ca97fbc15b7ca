// Schedule → loop nest. Every stage becomes its loops in leaf order with the schedule's
// annotations; a reduction becomes an init nest (placed just outside its first reduce loop)
// and an update; a stage computed inside a consumer's loop is placed there with storage for
// just its region; non-divisible splits get `likely` guards for the loop partitioner.
#ifndef TUNEFARM_COMPILER_LOWER_SCHEDULE_OPS_H_
#define TUNEFARM_COMPILER_LOWER_SCHEDULE_OPS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/lower/infer_bound.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::lower {

// `args` are the kernel's tensors; every other computed stage gets an Allocate. Loads and
// stores are still multi-dimensional.
absl::StatusOr<ir::Stmt> ScheduleOps(const schedule::Schedule& sch, const Bodies& bodies,
                                     const Domains& domains, const std::vector<te::Tensor>& args,
                                     const ir::VarMap& bindings);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_SCHEDULE_OPS_H_
