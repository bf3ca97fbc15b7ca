#include "compiler/tests/gpu_schedule.h"

#define RETURN_IF_ERROR(expr) \
  do {                        \
    absl::Status s_ = (expr); \
    if (!s_.ok()) return s_;  \
  } while (0)
#define ASSIGN_OR_RETURN(lhs, expr)             \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = *lhs##_or

namespace tunefarm::testing {

absl::Status ScheduleGpuMatmul(const Program& p, schedule::Schedule* sch, const GpuMatmulTiles& t) {
  schedule::Schedule& s = *sch;
  const te::Tensor& a = p.inputs[0];
  const te::Tensor& b = p.inputs[1];
  const te::Tensor& c = p.outputs[0];
  ASSIGN_OR_RETURN(cc, s.CacheWrite(c, "local"));
  ASSIGN_OR_RETURN(aa, s.CacheRead(a, "shared", {cc}));
  ASSIGN_OR_RETURN(bb, s.CacheRead(b, "shared", {cc}));
  const int64_t threads_y = t.block_y / t.thread_y, threads_x = t.block_x / t.thread_x;

  schedule::Stage& cs = s[c];
  ASSIGN_OR_RETURN(y, cs.Split(cs.axis(0), t.block_y));
  ASSIGN_OR_RETURN(x, cs.Split(cs.axis(1), t.block_x));
  ASSIGN_OR_RETURN(yt, cs.Split(y.second, t.thread_y));
  ASSIGN_OR_RETURN(xt, cs.Split(x.second, t.thread_x));
  RETURN_IF_ERROR(cs.Reorder({y.first, x.first, yt.first, xt.first, yt.second, xt.second}));
  RETURN_IF_ERROR(cs.Bind(y.first, "blockIdx.y"));
  RETURN_IF_ERROR(cs.Bind(x.first, "blockIdx.x"));
  RETURN_IF_ERROR(cs.Bind(yt.first, "threadIdx.y"));
  RETURN_IF_ERROR(cs.Bind(xt.first, "threadIdx.x"));

  schedule::Stage& ccs = s[cc];
  RETURN_IF_ERROR(ccs.ComputeAt(cs, xt.first));
  ASSIGN_OR_RETURN(k, ccs.Split(ccs.reduce_axis(0), t.tile_k));
  RETURN_IF_ERROR(ccs.Reorder({k.first, k.second, ccs.axis(0), ccs.axis(1)}));
  RETURN_IF_ERROR(ccs.Unroll(ccs.axis(0)));
  RETURN_IF_ERROR(ccs.Unroll(ccs.axis(1)));

  for (const te::Tensor& shared : {aa, bb}) {
    schedule::Stage& ss = s[shared];
    RETURN_IF_ERROR(ss.ComputeAt(ccs, k.first));
    ASSIGN_OR_RETURN(fused, ss.Fuse(ss.axis(0), ss.axis(1)));
    ASSIGN_OR_RETURN(v, ss.Split(fused, t.vector));
    ASSIGN_OR_RETURN(tx, ss.Split(v.first, threads_x));
    ASSIGN_OR_RETURN(ty, ss.Split(tx.first, threads_y));
    RETURN_IF_ERROR(ss.Bind(tx.second, "threadIdx.x"));
    RETURN_IF_ERROR(ss.Bind(ty.second, "threadIdx.y"));
    if (t.vector > 1) RETURN_IF_ERROR(ss.Vectorize(v.second));
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::testing
