#include "tuner/templates/conv_common.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/gpu_common.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {

absl::StatusOr<ConvShape> MakeConvShape(const std::string& name, int64_t n, int64_t c, int64_t h,
                                        int64_t w, int64_t k, int64_t r, int64_t s, int64_t stride,
                                        int64_t pad) {
  ConvShape shape{n, c, h, w, k, r, s, stride, pad, 0, 0};
  if (pad < 0) return absl::InvalidArgumentError(absl::StrCat(name, ": pad must be >= 0"));
  if (pad >= r || pad >= s) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": pad ", pad, " must be smaller than the kernel (", r, "x", s, ")"));
  }
  if (h + 2 * pad < r || w + 2 * pad < s) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": kernel ", r, "x", s,
                                                   " is larger than the padded input ", h + 2 * pad,
                                                   "x", w + 2 * pad));
  }
  shape.oh = (h + 2 * pad - r) / stride + 1;
  shape.ow = (w + 2 * pad - s) / stride + 1;
  return shape;
}

te::Tensor PadInput(const te::Tensor& input, const ConvShape& sh) {
  if (sh.pad == 0) return input;
  auto i32 = [](int64_t v) { return ir::Expr(static_cast<int>(v)); };
  return te::Compute(
      {i32(sh.n), i32(sh.c), i32(sh.h + 2 * sh.pad), i32(sh.w + 2 * sh.pad)},
      [&](const std::vector<ir::Var>& i) {
        ir::Expr y = i[2] - i32(sh.pad), x = i[3] - i32(sh.pad);
        ir::Expr inside = y >= 0 && y < i32(sh.h) && x >= 0 && x < i32(sh.w);
        return ir::select(inside, input(i[0], i[1], y, x), ir::Expr(0.0f));
      },
      "pad");
}

absl::StatusOr<Workload> MakeConvWorkload(const std::string& name, const std::vector<int64_t>& a,
                                          ir::DataType dtype,
                                          const std::vector<ir::DataType>& dtypes) {
  std::vector<int64_t> positive = a;
  if (positive.size() == 9) positive[8] += 1;  // pad may be 0.
  if (absl::Status s = CheckArgs(name, positive, "N,C,H,W,K,R,S,stride,pad"); !s.ok()) return s;
  if (absl::Status s = CheckDtype(name, dtype, dtypes); !s.ok()) return s;
  auto sh = MakeConvShape(name, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
  if (!sh.ok()) return sh.status();
  double flop = 2.0 * sh->n * sh->k * sh->oh * sh->ow * sh->c * sh->r * sh->s;
  return Workload{name, a, dtype, flop};
}

ConvShape ConvShapeOf(const Workload& w) {
  const auto& a = w.args;
  return *MakeConvShape(w.template_name, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
}

DirectConv MakeDirectConv(const ConvShape& sh, ir::DataType dtype) {
  auto i32 = [](int64_t v) { return ir::Expr(static_cast<int>(v)); };
  DirectConv c;
  c.input = te::Placeholder({i32(sh.n), i32(sh.c), i32(sh.h), i32(sh.w)}, dtype, "I");
  c.weight = te::Placeholder({i32(sh.k), i32(sh.c), i32(sh.r), i32(sh.s)}, dtype, "W");
  c.padded = PadInput(c.input, sh);
  te::IterVar rc = te::ReduceAxis(i32(sh.c), "rc");
  te::IterVar ry = te::ReduceAxis(i32(sh.r), "ry");
  te::IterVar rx = te::ReduceAxis(i32(sh.s), "rx");
  c.out = te::Compute(
      {i32(sh.n), i32(sh.k), i32(sh.oh), i32(sh.ow)},
      [&](const std::vector<ir::Var>& i) {
        return te::Sum(Widen(c.padded(i[0], rc->var, i[2] * i32(sh.stride) + ry->var,
                                      i[3] * i32(sh.stride) + rx->var)) *
                           Widen(c.weight(i[1], rc->var, ry->var, rx->var)),
                       {rc, ry, rx});
      },
      "O");
  return c;
}

DirectConv MakeDepthwiseConv(const ConvShape& sh, ir::DataType dtype) {
  auto i32 = [](int64_t v) { return ir::Expr(static_cast<int>(v)); };
  DirectConv c;
  c.input = te::Placeholder({i32(sh.n), i32(sh.c), i32(sh.h), i32(sh.w)}, dtype, "I");
  c.weight = te::Placeholder({i32(sh.c), i32(1), i32(sh.r), i32(sh.s)}, dtype, "W");
  c.padded = PadInput(c.input, sh);
  te::IterVar ry = te::ReduceAxis(i32(sh.r), "ry");
  te::IterVar rx = te::ReduceAxis(i32(sh.s), "rx");
  c.out = te::Compute(
      {i32(sh.n), i32(sh.c), i32(sh.oh), i32(sh.ow)},
      [&](const std::vector<ir::Var>& i) {
        return te::Sum(Widen(c.padded(i[0], i[1], i[2] * i32(sh.stride) + ry->var,
                                      i[3] * i32(sh.stride) + rx->var)) *
                           Widen(c.weight(i[1], 0, ry->var, rx->var)),
                       {ry, rx});
      },
      "O");
  return c;
}

absl::Status UnrollWindow(const std::string& tmpl, schedule::Stage& stage, const te::IterVar& ry,
                          const te::IterVar& rx, const Config& config) {
  if (config.Annotate("unroll_rs") != "unroll") return absl::OkStatus();
  TF_RETURN_IF_SCHED_ERROR(stage.Unroll(ry), tmpl);
  TF_RETURN_IF_SCHED_ERROR(stage.Unroll(rx), tmpl);
  return absl::OkStatus();
}

absl::Status SchedulePaddingPlanes(const std::string& tmpl, schedule::Schedule& s,
                                   const DirectConv& conv, bool parallel) {
  if (conv.padded == conv.input) return absl::OkStatus();
  schedule::Stage& p = s[conv.padded];
  TF_ASSIGN_OR_RETURN_SCHED(planes, p.Fuse(p.axis(0), p.axis(1)), tmpl);
  if (parallel) TF_RETURN_IF_SCHED_ERROR(p.Parallel(planes), tmpl);
  return absl::OkStatus();
}

}  // namespace tunefarm::tuner
