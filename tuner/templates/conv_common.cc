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

absl::StatusOr<te::Tensor> PadInput(const te::Tensor& input, const ConvShape& sh) {
  if (sh.pad == 0) return input;
  return te::Compute(
      {I32(sh.n), I32(sh.c), I32(sh.h + 2 * sh.pad), I32(sh.w + 2 * sh.pad)},
      [&](const std::vector<ir::Var>& i) {
        ir::Expr y = i[2] - I32(sh.pad), x = i[3] - I32(sh.pad);
        ir::Expr inside = y >= 0 && y < I32(sh.h) && x >= 0 && x < I32(sh.w);
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

absl::StatusOr<ConvShape> ConvShapeOf(const Workload& w) {
  const auto& a = w.args;
  if (a.size() != 9) {
    return absl::InvalidArgumentError(absl::StrCat(w.template_name, " takes 9 shape arguments (",
                                                   "N,C,H,W,K,R,S,stride,pad), got ", a.size()));
  }
  return MakeConvShape(w.template_name, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
}

absl::StatusOr<DirectConv> MakeDirectConv(const ConvShape& sh, ir::DataType dtype) {
  DirectConv c;
  c.input = te::Placeholder({I32(sh.n), I32(sh.c), I32(sh.h), I32(sh.w)}, dtype, "I");
  c.weight = te::Placeholder({I32(sh.k), I32(sh.c), I32(sh.r), I32(sh.s)}, dtype, "W");
  absl::StatusOr<te::Tensor> padded = PadInput(c.input, sh);
  if (!padded.ok()) return padded.status();
  c.padded = *std::move(padded);
  te::IterVar rc = te::ReduceAxis(I32(sh.c), "rc");
  te::IterVar ry = te::ReduceAxis(I32(sh.r), "ry");
  te::IterVar rx = te::ReduceAxis(I32(sh.s), "rx");
  absl::StatusOr<te::Tensor> out = te::Compute(
      {I32(sh.n), I32(sh.k), I32(sh.oh), I32(sh.ow)},
      [&](const std::vector<ir::Var>& i) {
        return te::Sum(Widen(c.padded(i[0], rc->var, i[2] * I32(sh.stride) + ry->var,
                                      i[3] * I32(sh.stride) + rx->var)) *
                           Widen(c.weight(i[1], rc->var, ry->var, rx->var)),
                       {rc, ry, rx});
      },
      "O");
  if (!out.ok()) return out.status();
  c.out = *std::move(out);
  return c;
}

absl::StatusOr<DirectConv> MakeDepthwiseConv(const ConvShape& sh, ir::DataType dtype) {
  DirectConv c;
  c.input = te::Placeholder({I32(sh.n), I32(sh.c), I32(sh.h), I32(sh.w)}, dtype, "I");
  c.weight = te::Placeholder({I32(sh.c), I32(1), I32(sh.r), I32(sh.s)}, dtype, "W");
  absl::StatusOr<te::Tensor> padded = PadInput(c.input, sh);
  if (!padded.ok()) return padded.status();
  c.padded = *std::move(padded);
  te::IterVar ry = te::ReduceAxis(I32(sh.r), "ry");
  te::IterVar rx = te::ReduceAxis(I32(sh.s), "rx");
  absl::StatusOr<te::Tensor> out = te::Compute(
      {I32(sh.n), I32(sh.c), I32(sh.oh), I32(sh.ow)},
      [&](const std::vector<ir::Var>& i) {
        return te::Sum(Widen(c.padded(i[0], i[1], i[2] * I32(sh.stride) + ry->var,
                                      i[3] * I32(sh.stride) + rx->var)) *
                           Widen(c.weight(i[1], 0, ry->var, rx->var)),
                       {ry, rx});
      },
      "O");
  if (!out.ok()) return out.status();
  c.out = *std::move(out);
  return c;
}

absl::Status UnrollWindow(const std::string& tmpl, schedule::Stage& stage, const te::IterVar& ry,
                          const te::IterVar& rx, const Config& config) {
  TF_TEMPLATE_ASSIGN_OR_RETURN(unroll_rs, config.Annotate("unroll_rs"), tmpl);
  if (unroll_rs != "unroll") return absl::OkStatus();
  TF_TEMPLATE_RETURN_IF_ERROR(stage.Unroll(ry), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(stage.Unroll(rx), tmpl);
  return absl::OkStatus();
}

absl::Status SchedulePaddingPlanes(const std::string& tmpl, schedule::Schedule& s,
                                   const DirectConv& conv, bool parallel) {
  if (conv.padded == conv.input) return absl::OkStatus();
  TF_TEMPLATE_STAGE(p, s, conv.padded, tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(planes, p.Fuse(p.axis(0), p.axis(1)), tmpl);
  if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(p.Parallel(planes), tmpl);
  return absl::OkStatus();
}

absl::Status DirectConvTemplate::DefineSpace(const Workload& w, const codegen::Target& target,
                                             ConfigSpace* space) const {
  absl::StatusOr<ConvShape> sh = Shape(w);
  if (!sh.ok()) return sh.status();
  if (target.kind == codegen::Target::Kind::kCUDA) {
    DefineGpuSpace(*sh, space);
    return absl::OkStatus();
  }
  DefineCpuSpace(*sh, space);
  space->DefineAnnotate("unroll_rs", {"none", "unroll"});
  space->DefineOther("parallel", {0, 1});
  return absl::OkStatus();
}

absl::StatusOr<Instance> DirectConvTemplate::Instantiate(const Workload& w,
                                                         const codegen::Target& target,
                                                         const Config* config) const {
  const std::string tmpl = name();
  absl::StatusOr<ConvShape> sh = Shape(w);
  if (!sh.ok()) return sh.status();
  if (target.kind == codegen::Target::Kind::kCUDA && config != nullptr) {
    return InstantiateGpu(*sh, w.dtype, *config);
  }
  TF_TEMPLATE_ASSIGN_OR_RETURN(conv, Define(*sh, w.dtype), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({conv.input, conv.weight, conv.out}), tmpl);
  if (config == nullptr) return inst;
  schedule::Schedule& s = *inst.sch;
  TF_TEMPLATE_ASSIGN_OR_RETURN(parallel, config->Other("parallel"), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(local, s.CacheWrite(conv.out, "local"), tmpl);
  TF_TEMPLATE_STAGE(o, s, conv.out, tmpl);
  TF_TEMPLATE_STAGE(l, s, local, tmpl);
  // The steps below report their errors as TemplateError already.
  absl::StatusOr<Window> window = ScheduleCpu(*config, parallel != 0, o, l);
  if (!window.ok()) return window.status();
  if (absl::Status st = UnrollWindow(tmpl, l, window->ry, window->rx, *config); !st.ok()) {
    return st;
  }
  if (absl::Status st = SchedulePaddingPlanes(tmpl, s, conv, parallel != 0); !st.ok()) return st;
  return inst;
}

}  // namespace tunefarm::tuner
