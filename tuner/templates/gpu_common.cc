#include "tuner/templates/gpu_common.h"

#include <numeric>

#include "compiler/ir/ir_operators.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {

absl::Status CooperativeFetch(const std::string& tmpl, schedule::Stage& stage,
                              const BlockThreads& threads, int64_t vector) {
  te::IterVar fused = stage.leaf_ivars()[0];
  while (stage.leaf_ivars().size() > 1) {
    TF_ASSIGN_OR_RETURN_SCHED(f, stage.Fuse(stage.leaf_ivars()[0], stage.leaf_ivars()[1]), tmpl);
    fused = f;
  }
  TF_ASSIGN_OR_RETURN_SCHED(v, stage.Split(fused, vector), tmpl);
  TF_ASSIGN_OR_RETURN_SCHED(tx, stage.Split(v.first, threads.x), tmpl);
  TF_ASSIGN_OR_RETURN_SCHED(ty, stage.Split(tx.first, threads.y), tmpl);
  TF_RETURN_IF_SCHED_ERROR(stage.Bind(tx.second, "threadIdx.x"), tmpl);
  TF_RETURN_IF_SCHED_ERROR(stage.Bind(ty.second, "threadIdx.y"), tmpl);
  if (threads.z > 1) {
    TF_ASSIGN_OR_RETURN_SCHED(tz, stage.Split(ty.first, threads.z), tmpl);
    TF_RETURN_IF_SCHED_ERROR(stage.Bind(tz.second, "threadIdx.z"), tmpl);
  }
  if (vector > 1) TF_RETURN_IF_SCHED_ERROR(stage.Vectorize(v.second), tmpl);
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
