#include "bench/onednn_run.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/str_join.h"

namespace tunefarm::bench {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

memory OneDnnRun::Make(const memory::desc& d) {
  memory m(d, eng);
  const size_t bytes = d.get_size();
  switch (d.data_type()) {
    case Dt::f32: {
      float* p = static_cast<float*>(m.get_data_handle());
      for (size_t i = 0; i < bytes / sizeof(float); ++i) p[i] = 0.01f * (i % 13) - 0.05f;
      break;
    }
    case Dt::s32: {
      int32_t* p = static_cast<int32_t*>(m.get_data_handle());
      for (size_t i = 0; i < bytes / sizeof(int32_t); ++i) p[i] = static_cast<int32_t>(i % 7);
      break;
    }
    default: {  // u8 and s8: values small enough for either.
      uint8_t* p = static_cast<uint8_t*>(m.get_data_handle());
      for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(i % 13);
      break;
    }
  }
  return m;
}

void OneDnnRun::Run() {
  for (auto& [prim, args] : steps) prim.execute(stream, args);
  stream.wait();
}

std::string OneDnnRun::Impl() const { return absl::StrJoin(impls, "+"); }

namespace {

struct Types {
  Dt src, wei, dst;
};

Types TypesOf(OneDnnTypes t) {
  if (t == OneDnnTypes::kU8S8S32) return {Dt::u8, Dt::s8, Dt::s32};
  return {Dt::f32, Dt::f32, Dt::f32};
}

// One primitive on fresh memories in the layouts its descriptor chose.
template <typename Prim, typename Pd>
void AddStep(OneDnnRun& r, const Pd& pd) {
  r.impls.push_back(pd.impl_info_str());
  r.steps.push_back({Prim(pd),
                     {{DNNL_ARG_SRC, r.Make(pd.src_desc())},
                      {DNNL_ARG_WEIGHTS, r.Make(pd.weights_desc())},
                      {DNNL_ARG_DST, r.Make(pd.dst_desc())}}});
}

}  // namespace

OneDnnPtr OneDnnMatmul(int64_t batch, int64_t m, int64_t n, int64_t k, OneDnnTypes types,
                       MatmulWeight weight) {
  auto run = std::make_shared<OneDnnRun>();
  const Types t = TypesOf(types);
  memory::dims src = {m, k}, wei = {k, n}, dst = {m, n};
  if (batch > 1) src = {batch, m, k}, wei = {batch, k, n}, dst = {batch, m, n};
  // The activations keep their plain layout (another operator produced them, and the result
  // goes to another); W as written, [n×k] per batch, is the transposed (k, n) matrix.
  const Tag plain = batch > 1 ? Tag::abc : Tag::ab;
  const Tag written_w = batch > 1 ? Tag::acb : Tag::ba;
  const memory::desc wei_desc(wei, t.wei,
                              weight == MatmulWeight::kActivationAsIs ? written_w : Tag::any);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(memory::desc(src, t.src, plain), wei_desc,
                                                     memory::desc(dst, t.dst, plain)),
                                  run->eng);
  if (weight != MatmulWeight::kActivationReordered) {
    AddStep<dnnl::matmul>(*run, pd);
    return run;
  }
  memory written = run->Make(memory::desc(wei, t.wei, written_w));
  memory laid_out(pd.weights_desc(), run->eng);
  dnnl::reorder::primitive_desc rpd(written, laid_out);
  run->impls.push_back(rpd.impl_info_str());
  run->steps.push_back({dnnl::reorder(rpd), {{DNNL_ARG_FROM, written}, {DNNL_ARG_TO, laid_out}}});
  run->impls.push_back(pd.impl_info_str());
  run->steps.push_back({dnnl::matmul(pd),
                        {{DNNL_ARG_SRC, run->Make(pd.src_desc())},
                         {DNNL_ARG_WEIGHTS, laid_out},
                         {DNNL_ARG_DST, run->Make(pd.dst_desc())}}});
  return run;
}

OneDnnPtr OneDnnInnerProduct(int64_t m, int64_t n, int64_t k, OneDnnTypes types) {
  auto run = std::make_shared<OneDnnRun>();
  const Types t = TypesOf(types);
  dnnl::inner_product_forward::desc desc(
      dnnl::prop_kind::forward_inference, memory::desc({m, k}, t.src, Tag::any),
      memory::desc({n, k}, t.wei, Tag::any), memory::desc({m, n}, t.dst, Tag::any));
  AddStep<dnnl::inner_product_forward>(*run,
                                       dnnl::inner_product_forward::primitive_desc(desc, run->eng));
  return run;
}

OneDnnPtr OneDnnConv(const OneDnnConvShape& s, OneDnnTypes types, dnnl::algorithm algorithm) {
  auto run = std::make_shared<OneDnnRun>();
  const Types t = TypesOf(types);
  const int64_t oh = (s.h + 2 * s.pad - s.r) / s.stride + 1;
  const int64_t ow = (s.w + 2 * s.pad - s.s) / s.stride + 1;
  memory::dims wei = {s.f, s.c, s.r, s.s};
  if (s.depthwise) wei = {s.c, 1, 1, s.r, s.s};  // groups, out/group, in/group, kh, kw.
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm,
                                       memory::desc({s.n, s.c, s.h, s.w}, t.src, Tag::any),
                                       memory::desc(wei, t.wei, Tag::any),
                                       memory::desc({s.n, s.f, oh, ow}, t.dst, Tag::any),
                                       {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad});
  AddStep<dnnl::convolution_forward>(*run,
                                     dnnl::convolution_forward::primitive_desc(desc, run->eng));
  return run;
}

ConvMismatch OneDnnInt8WinogradMismatch(const OneDnnConvShape& s) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  const int64_t oh = (s.h + 2 * s.pad - s.r) / s.stride + 1;
  const int64_t ow = (s.w + 2 * s.pad - s.s) / s.stride + 1;
  using DT = memory::data_type;
  dnnl::memory src(memory::desc({s.n, s.c, s.h, s.w}, DT::u8, Tag::nhwc), eng);
  dnnl::memory wei(memory::desc({s.f, s.c, s.r, s.s}, DT::s8, Tag::oihw), eng);
  // The same weights in f32, for the Winograd weight format (its reorder transforms them).
  dnnl::memory wei_f32(memory::desc({s.f, s.c, s.r, s.s}, DT::f32, Tag::oihw), eng);
  auto* sp = static_cast<uint8_t*>(src.get_data_handle());
  for (int64_t i = 0; i < s.n * s.c * s.h * s.w; ++i)
    sp[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  auto* wp = static_cast<int8_t*>(wei.get_data_handle());
  auto* wf = static_cast<float*>(wei_f32.get_data_handle());
  for (int64_t i = 0; i < s.f * s.c * s.r * s.s; ++i) {
    wp[i] = static_cast<int8_t>((i * 53 + 7) % 255 - 127);
    wf[i] = wp[i];
  }
  std::vector<std::vector<int32_t>> outs;
  for (dnnl::algorithm algorithm :
       {dnnl::algorithm::convolution_direct, dnnl::algorithm::convolution_winograd}) {
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm,
                                         memory::desc({s.n, s.c, s.h, s.w}, DT::u8, Tag::any),
                                         memory::desc({s.f, s.c, s.r, s.s}, DT::s8, Tag::any),
                                         memory::desc({s.n, s.f, oh, ow}, DT::s32, Tag::any),
                                         {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad});
    dnnl::convolution_forward::primitive_desc pd(desc, eng);
    dnnl::memory src2(pd.src_desc(), eng), wei2(pd.weights_desc(), eng), dst2(pd.dst_desc(), eng);
    dnnl::memory dst(memory::desc({s.n, s.f, oh, ow}, DT::s32, Tag::nhwc), eng);
    dnnl::reorder(src, src2).execute(stream, src, src2);
    try {
      dnnl::reorder(wei, wei2).execute(stream, wei, wei2);
    } catch (const dnnl::error&) {  // The Winograd weight format is made from f32 weights.
      dnnl::reorder(wei_f32, wei2).execute(stream, wei_f32, wei2);
    }
    dnnl::convolution_forward(pd).execute(
        stream, {{DNNL_ARG_SRC, src2}, {DNNL_ARG_WEIGHTS, wei2}, {DNNL_ARG_DST, dst2}});
    dnnl::reorder(dst2, dst).execute(stream, dst2, dst);
    stream.wait();
    const auto* out = static_cast<const int32_t*>(dst.get_data_handle());
    outs.emplace_back(out, out + s.n * s.f * oh * ow);
  }
  ConvMismatch m;
  m.total = static_cast<int64_t>(outs[0].size());
  for (int64_t i = 0; i < m.total; ++i) {
    const int64_t d = std::llabs(static_cast<int64_t>(outs[0][i]) - outs[1][i]);
    if (d != 0) ++m.differing;
    m.max_abs = std::max(m.max_abs, d);
  }
  return m;
}

}  // namespace tunefarm::bench
