#include "bench/onednn_run.h"

#include <cstdint>

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

OneDnnPtr OneDnnMatmul(int64_t batch, int64_t m, int64_t n, int64_t k, OneDnnTypes types) {
  auto run = std::make_shared<OneDnnRun>();
  const Types t = TypesOf(types);
  memory::dims src = {m, k}, wei = {k, n}, dst = {m, n};
  if (batch > 1) src = {batch, m, k}, wei = {batch, k, n}, dst = {batch, m, n};
  // A constant weight may be laid out as oneDNN likes; the activations keep their plain layout
  // (another operator produced them, and the result goes to another).
  const Tag plain = batch > 1 ? Tag::abc : Tag::ab;
  dnnl::matmul::desc desc(memory::desc(src, t.src, plain), memory::desc(wei, t.wei, Tag::any),
                          memory::desc(dst, t.dst, plain));
  AddStep<dnnl::matmul>(*run, dnnl::matmul::primitive_desc(desc, run->eng));
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

}  // namespace tunefarm::bench
