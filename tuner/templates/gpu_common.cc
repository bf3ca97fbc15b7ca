#include "tuner/templates/gpu_common.h"

#include <numeric>

#include "compiler/ir/ir_operators.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {

absl::Status CooperativeFetch(const std::string& tmpl, schedule::Stage& stage,
                              const BlockThreads& threads, int64_t vector) {
  if (stage.leaf_ivars().empty()) {
    return TemplateError(tmpl,
                         absl::InvalidArgumentError("cooperative fetch of a stage with no loops"));
  }
  te::IterVar fused = stage.leaf_ivars()[0];
  while (stage.leaf_ivars().size() > 1) {
    TF_TEMPLATE_ASSIGN_OR_RETURN(f, stage.Fuse(stage.leaf_ivars()[0], stage.leaf_ivars()[1]), tmpl);
    fused = f;
  }
  TF_TEMPLATE_ASSIGN_OR_RETURN(v, stage.Split(fused, vector), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(tx, stage.Split(v.first, threads.x), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(ty, stage.Split(tx.first, threads.y), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(stage.Bind(tx.second, "threadIdx.x"), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(stage.Bind(ty.second, "threadIdx.y"), tmpl);
  if (threads.z > 1) {
    TF_TEMPLATE_ASSIGN_OR_RETURN(tz, stage.Split(ty.first, threads.z), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(stage.Bind(tz.second, "threadIdx.z"), tmpl);
  }
  if (vector > 1) TF_TEMPLATE_RETURN_IF_ERROR(stage.Vectorize(v.second), tmpl);
  return absl::OkStatus();
}

int64_t FillLanes(int64_t requested, ir::DataType dtype, int64_t run) {
  int64_t lanes = std::min<int64_t>(requested, 16 / dtype.bytes());
  return std::max<int64_t>(1, std::gcd(lanes, run));
}

ir::Expr Widen(ir::Expr e) {
  if (e.type().is_float() && e.type().bits == 16) return ir::cast(ir::DataType::Float(32), e);
  return e;
}

}  // namespace tunefarm::tuner
