// Helpers shared by the template definitions.
#ifndef TUNEFARM_TUNER_TEMPLATES_TEMPLATE_UTIL_H_
#define TUNEFARM_TUNER_TEMPLATES_TEMPLATE_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/type.h"
#include "compiler/schedule/schedule.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

// InvalidArgument unless `args` has one positive entry per name in `names` (comma-separated).
absl::Status CheckArgs(const std::string& template_name, const std::vector<int64_t>& args,
                       const std::string& names);

// InvalidArgument unless dtype is one of `supported`.
absl::Status CheckDtype(const std::string& template_name, ir::DataType dtype,
                        const std::vector<ir::DataType>& supported);

// The instance of a program whose output is the last of `args` (inputs first), with a fresh
// schedule. InvalidArgument: as schedule::Schedule::Create.
absl::StatusOr<Instance> MakeInstance(std::vector<te::Tensor> args);

// Converts a failed schedule primitive into the template's error: a template whose config
// produces an invalid schedule is a bug in the template, reported as Internal with context.
absl::Status ScheduleError(const std::string& template_name, const absl::Status& s);

// Unwraps a StatusOr from a schedule primitive inside a template, returning early on error.
#define TF_ASSIGN_OR_RETURN_SCHED(lhs, expr, tmpl)                                      \
  auto lhs##_or = (expr);                                                               \
  if (!lhs##_or.ok()) return ::tunefarm::tuner::ScheduleError(tmpl, lhs##_or.status()); \
  auto lhs = *std::move(lhs##_or)

#define TF_RETURN_IF_SCHED_ERROR(expr, tmpl)                             \
  do {                                                                   \
    absl::Status tf_s = (expr);                                          \
    if (!tf_s.ok()) return ::tunefarm::tuner::ScheduleError(tmpl, tf_s); \
  } while (0)

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_TEMPLATE_UTIL_H_
