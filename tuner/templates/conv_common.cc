#include "tuner/templates/conv_common.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_operators.h"

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

}  // namespace tunefarm::tuner
