// Helpers shared by the template definitions.
#ifndef TUNEFARM_TUNER_TEMPLATES_TEMPLATE_UTIL_H_
#define TUNEFARM_TUNER_TEMPLATES_TEMPLATE_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/ir.h"
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

// An int32 constant: the index type of every template's shapes and loop bounds. Args are at
// most 2^24 (CheckArgs), so the narrowing is exact.
inline ir::Expr I32(int64_t v) { return ir::Expr(static_cast<int>(v)); }

// The instance of a program whose output is the last of `args` (inputs first), with a fresh
// schedule. InvalidArgument: as schedule::Schedule::Create.
absl::StatusOr<Instance> MakeInstance(std::vector<te::Tensor> args);

// Converts a failed step of building a template's program or schedule (te::Compute, a
// schedule primitive, a knob lookup) into the template's error. Every input a template sees was
// validated by MakeWorkload and the config's space, so such a failure is a bug in the template:
// Internal with context, and the job fails instead of the service. Templates use only these
// Status-returning APIs, never the aborting Schedule::operator[]. A status that already is
// this template's TemplateError (from a shared helper) is returned unchanged.
absl::Status TemplateError(const std::string& template_name, const absl::Status& s);

// Unwraps a StatusOr inside a template, returning early with TemplateError.
#define TF_TEMPLATE_ASSIGN_OR_RETURN(lhs, expr, tmpl)                                   \
  auto lhs##_or = (expr);                                                               \
  if (!lhs##_or.ok()) return ::tunefarm::tuner::TemplateError(tmpl, lhs##_or.status()); \
  auto lhs = *std::move(lhs##_or)

#define TF_TEMPLATE_RETURN_IF_ERROR(expr, tmpl)                          \
  do {                                                                   \
    absl::Status tf_s = (expr);                                          \
    if (!tf_s.ok()) return ::tunefarm::tuner::TemplateError(tmpl, tf_s); \
  } while (0)

// Binds `schedule::Stage& lhs` to the stage of `tensor` in `sched`, returning early with
// TemplateError when the tensor is not part of it.
#define TF_TEMPLATE_STAGE(lhs, sched, tensor, tmpl)                         \
  TF_TEMPLATE_ASSIGN_OR_RETURN(lhs##_stage, (sched).StageOf(tensor), tmpl); \
  ::tunefarm::schedule::Stage& lhs = *lhs##_stage

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_TEMPLATE_UTIL_H_
