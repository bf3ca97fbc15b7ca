#include "compiler/tests/programs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/base/internal/raw_logging.h"
#include "compiler/ir/ir_operators.h"

namespace tunefarm::testing {

using ir::DataType;
using ir::Expr;
using ir::Var;
using runtime::NDArray;
using te::Tensor;

namespace {

const DataType kF32 = DataType::Float(32);

// Row-major element offset.
int64_t At(const NDArray& a, std::initializer_list<int64_t> idx) {
  int64_t off = 0;
  size_t d = 0;
  for (int64_t i : idx) off = off * a.shape()[d++] + i;
  return off;
}

}  // namespace

std::vector<Tensor> Program::args() const {
  std::vector<Tensor> out = inputs;
  out.insert(out.end(), outputs.begin(), outputs.end());
  return out;
}

Program Matmul(int m, int n, int k) {
  Program p{"matmul", {}, {}, nullptr};
  Tensor A = te::Placeholder({m, k}, kF32, "A");
  Tensor B = te::Placeholder({k, n}, kF32, "B");
  auto kk = te::ReduceAxis(k, "k");
  Tensor C = te::Compute(
                 {m, n},
                 [&](const std::vector<Var>& i) {
                   return te::Sum(A(i[0], kk->var) * B(kk->var, i[1]), {kk});
                 },
                 "C")
                 .value();
  p.inputs = {A, B};
  p.outputs = {C};
  p.reference = [=](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int x = 0; x < k; ++x)
          s += in[0]->Get(At(*in[0], {i, x})) * in[1]->Get(At(*in[1], {x, j}));
        out[0]->Set(At(*out[0], {i, j}), s);
      }
    }
  };
  return p;
}

Program BatchMatmul(int batch, int m, int n, int k) {
  Program p{"batch_matmul", {}, {}, nullptr};
  Tensor A = te::Placeholder({batch, m, k}, kF32, "A");
  Tensor B = te::Placeholder({batch, k, n}, kF32, "B");
  auto kk = te::ReduceAxis(k, "k");
  Tensor C = te::Compute(
                 {batch, m, n},
                 [&](const std::vector<Var>& i) {
                   return te::Sum(A(i[0], i[1], kk->var) * B(i[0], kk->var, i[2]), {kk});
                 },
                 "C")
                 .value();
  p.inputs = {A, B};
  p.outputs = {C};
  p.reference = [=](const std::vector<NDArray*>& in, const std::vector<NDArray*>& out) {
    for (int b = 0; b < batch; ++b) {
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double s = 0;
          for (int x = 0; x < k; ++x) {
            s += in[0]->Get(At(*in[0], {b, i, x})) * in[1]->Get(At(*in[1], {b, x, j}));
          }
          out[0]->Set(At(*out[0], {b, i, j}), s);
        }
      }
    }
  };
  return p;
}

// pad[n, c, h, w] = X[n, c, h - pad, w - pad] inside the image, else 0.
Tensor Pad(const Tensor& X, int pad) {
  Expr h = X.shape()[2], w = X.shape()[3];
  const int64_t hh = *ir::AsConstInt(h) + 2 * pad, ww = *ir::AsConstInt(w) + 2 * pad;
  return te::Compute(
             {X.shape()[0], X.shape()[1], static_cast<int>(hh), static_cast<int>(ww)},
             [&](const std::vector<Var>& i) {
               Expr inside = i[2] >= pad && i[2] < h + pad && i[3] >= pad && i[3] < w + pad;
               return ir::select(inside, X(i[0], i[1], i[2] - pad, i[3] - pad), Expr(0.0f));
             },
             "pad")
      .value();
}

Program Conv2dNchw(int channels, int filters, int size, int stride) {
  Program p{"conv2d_nchw", {}, {}, nullptr};
  const int kr = 3, pad = 1, out = (size + 2 * pad - kr) / stride + 1;
  Tensor X = te::Placeholder({1, channels, size, size}, kF32, "X");
  Tensor W = te::Placeholder({filters, channels, kr, kr}, kF32, "W");
  Tensor P = Pad(X, pad);
  auto rc = te::ReduceAxis(channels, "rc");
  auto ry = te::ReduceAxis(kr, "ry");
  auto rx = te::ReduceAxis(kr, "rx");
  Tensor Y =
      te::Compute(
          {1, filters, out, out},
          [&](const std::vector<Var>& i) {
            return te::Sum(P(i[0], rc->var, i[2] * stride + ry->var, i[3] * stride + rx->var) *
                               W(i[1], rc->var, ry->var, rx->var),
                           {rc, ry, rx});
          },
          "Y")
          .value();
  p.inputs = {X, W};
  p.outputs = {Y};
  p.reference = [=](const std::vector<NDArray*>& in, const std::vector<NDArray*>& o) {
    for (int f = 0; f < filters; ++f) {
      for (int y = 0; y < out; ++y) {
        for (int x = 0; x < out; ++x) {
          double s = 0;
          for (int c = 0; c < channels; ++c) {
            for (int a = 0; a < kr; ++a) {
              for (int b = 0; b < kr; ++b) {
                int h = y * stride + a - pad, w = x * stride + b - pad;
                if (h < 0 || h >= size || w < 0 || w >= size) continue;
                s += in[0]->Get(At(*in[0], {0, c, h, w})) * in[1]->Get(At(*in[1], {f, c, a, b}));
              }
            }
          }
          o[0]->Set(At(*o[0], {0, f, y, x}), s);
        }
      }
    }
  };
  return p;
}

Program DepthwiseConv2d(int channels, int size) {
  Program p{"depthwise_conv2d", {}, {}, nullptr};
  const int kr = 3, pad = 1;
  Tensor X = te::Placeholder({1, channels, size, size}, kF32, "X");
  Tensor W = te::Placeholder({channels, 1, kr, kr}, kF32, "W");
  Tensor P = Pad(X, pad);
  auto ry = te::ReduceAxis(kr, "ry");
  auto rx = te::ReduceAxis(kr, "rx");
  Tensor Y = te::Compute(
                 {1, channels, size, size},
                 [&](const std::vector<Var>& i) {
                   return te::Sum(
                       P(i[0], i[1], i[2] + ry->var, i[3] + rx->var) * W(i[1], 0, ry->var, rx->var),
                       {ry, rx});
                 },
                 "Y")
                 .value();
  p.inputs = {X, W};
  p.outputs = {Y};
  p.reference = [=](const std::vector<NDArray*>& in, const std::vector<NDArray*>& o) {
    for (int c = 0; c < channels; ++c) {
      for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
          double s = 0;
          for (int a = 0; a < kr; ++a) {
            for (int b = 0; b < kr; ++b) {
              int h = y + a - pad, w = x + b - pad;
              if (h < 0 || h >= size || w < 0 || w >= size) continue;
              s += in[0]->Get(At(*in[0], {0, c, h, w})) * in[1]->Get(At(*in[1], {c, 0, a, b}));
            }
          }
          o[0]->Set(At(*o[0], {0, c, y, x}), s);
        }
      }
    }
  };
  return p;
}

Program Softmax(int rows, int cols) {
  Program p{"softmax", {}, {}, nullptr};
  Tensor X = te::Placeholder({rows, cols}, kF32, "X");
  auto j1 = te::ReduceAxis(cols, "j1");
  Tensor M =
      te::Compute(
          {rows}, [&](const std::vector<Var>& i) { return te::Max(X(i[0], j1->var), {j1}); }, "M")
          .value();
  Tensor E = te::Compute(
                 {rows, cols},
                 [&](const std::vector<Var>& i) { return ir::exp(X(i[0], i[1]) - M(i[0])); }, "E")
                 .value();
  auto j2 = te::ReduceAxis(cols, "j2");
  Tensor S =
      te::Compute(
          {rows}, [&](const std::vector<Var>& i) { return te::Sum(E(i[0], j2->var), {j2}); }, "S")
          .value();
  Tensor Y =
      te::Compute(
          {rows, cols}, [&](const std::vector<Var>& i) { return E(i[0], i[1]) / S(i[0]); }, "Y")
          .value();
  p.inputs = {X};
  p.outputs = {Y};
  p.reference = [=](const std::vector<NDArray*>& in, const std::vector<NDArray*>& o) {
    for (int i = 0; i < rows; ++i) {
      double mx = -std::numeric_limits<double>::infinity(), s = 0;
      for (int j = 0; j < cols; ++j) mx = std::max(mx, in[0]->Get(At(*in[0], {i, j})));
      for (int j = 0; j < cols; ++j) s += std::exp(in[0]->Get(At(*in[0], {i, j})) - mx);
      for (int j = 0; j < cols; ++j) {
        o[0]->Set(At(*o[0], {i, j}), std::exp(in[0]->Get(At(*in[0], {i, j})) - mx) / s);
      }
    }
  };
  return p;
}

Program BroadcastElementwise(int batch, int m, int n) {
  Program p{"broadcast_elementwise", {}, {}, nullptr};
  Tensor A = te::Placeholder({batch, m, n}, kF32, "A");
  Tensor S = te::Placeholder({n}, kF32, "s");
  Tensor T = te::Placeholder({m, 1}, kF32, "t");
  Tensor Z =
      te::Compute(
          {batch, m, n},
          [&](const std::vector<Var>& i) { return A(i[0], i[1], i[2]) * S(i[2]) + T(i[1], 0); },
          "Z")
          .value();
  Tensor Y =
      te::Compute(
          {batch, m, n},
          [&](const std::vector<Var>& i) { return ir::max(Z(i[0], i[1], i[2]), Expr(0.0f)); }, "Y")
          .value();
  p.inputs = {A, S, T};
  p.outputs = {Y};
  p.reference = [=](const std::vector<NDArray*>& in, const std::vector<NDArray*>& o) {
    for (int b = 0; b < batch; ++b) {
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double z = in[0]->Get(At(*in[0], {b, i, j})) * in[1]->Get(j) + in[2]->Get(i);
          o[0]->Set(At(*o[0], {b, i, j}), std::max(z, 0.0));
        }
      }
    }
  };
  return p;
}

std::vector<Program> AllPrograms() {
  return {Matmul(),          BatchMatmul(), Conv2dNchw(),
          DepthwiseConv2d(), Softmax(),     BroadcastElementwise()};
}

namespace {

std::vector<int64_t> ConstShape(const Tensor& t) {
  std::vector<int64_t> shape;
  for (const Expr& e : t.shape()) {
    const int64_t* c = ir::AsConstInt(e);
    ABSL_RAW_CHECK(c != nullptr, "test programs have constant shapes");
    shape.push_back(*c);
  }
  return shape;
}

}  // namespace

std::vector<NDArray> MakeArgs(const Program& p, uint64_t seed) {
  std::vector<NDArray> out;
  for (const Tensor& t : p.args()) {
    auto a = NDArray::Empty(ConstShape(t), t.dtype());
    ABSL_RAW_CHECK(a.ok(), "NDArray::Empty failed");
    out.push_back(std::move(*a));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (i < p.inputs.size()) {
      out[i].FillRandom(seed + i);
    } else {
      out[i].Fill(NAN);
    }
  }
  return out;
}

std::vector<NDArray> ReferenceOutputs(const Program& p, std::vector<NDArray>& args) {
  std::vector<NDArray> refs;
  for (const Tensor& t : p.outputs)
    refs.push_back(std::move(*NDArray::Empty(ConstShape(t), t.dtype())));
  std::vector<NDArray*> in, out;
  for (size_t i = 0; i < p.inputs.size(); ++i) in.push_back(&args[i]);
  for (NDArray& r : refs) out.push_back(&r);
  p.reference(in, out);
  return refs;
}

}  // namespace tunefarm::testing
