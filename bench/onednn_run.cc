#include "bench/onednn_run.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>

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

namespace {

// The row-major layout of a descriptor's dims, of its data type or of `type`.
memory::desc Plain(const memory::desc& d, std::optional<Dt> type = std::nullopt) {
  static constexpr Tag kByRank[] = {Tag::undef, Tag::a, Tag::ab, Tag::abc, Tag::abcd, Tag::abcde};
  const memory::dims dims = d.dims();
  return memory::desc(dims, type.value_or(d.data_type()),
                      kByRank[std::min<size_t>(dims.size(), 5)]);
}

int64_t Elements(const memory::desc& d) {
  int64_t n = 1;
  for (int64_t v : d.dims()) n *= v;
  return n;
}

}  // namespace

Int8Mismatch CheckInt8(OneDnnRun& run, const Int8Reference& ref) {
  auto& [prim, args] = run.steps.back();
  memory& src = args.at(DNNL_ARG_SRC);
  memory& wei = args.at(DNNL_ARG_WEIGHTS);
  memory& dst = args.at(DNNL_ARG_DST);
  memory src_plain(Plain(src.get_desc()), run.eng), wei_plain(Plain(wei.get_desc()), run.eng);
  memory dst_plain(Plain(dst.get_desc()), run.eng);
  auto* sp = static_cast<uint8_t*>(src_plain.get_data_handle());
  for (int64_t i = 0; i < Elements(src.get_desc()); ++i) {
    sp[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  }
  auto* wp = static_cast<int8_t*>(wei_plain.get_data_handle());
  for (int64_t i = 0; i < Elements(wei.get_desc()); ++i) {
    wp[i] = static_cast<int8_t>((i * 53 + 7) % 256 - 128);
  }
  dnnl::reorder(src_plain, src).execute(run.stream, src_plain, src);
  try {
    dnnl::reorder(wei_plain, wei).execute(run.stream, wei_plain, wei);
  } catch (const dnnl::error&) {  // The int8 Winograd weight format is made from f32 weights.
    memory wei_f32(Plain(wei.get_desc(), Dt::f32), run.eng);
    auto* wf = static_cast<float*>(wei_f32.get_data_handle());
    for (int64_t i = 0; i < Elements(wei.get_desc()); ++i) wf[i] = wp[i];
    dnnl::reorder(wei_f32, wei).execute(run.stream, wei_f32, wei);
  }
  run.Run();
  dnnl::reorder(dst, dst_plain).execute(run.stream, dst, dst_plain);
  run.stream.wait();
  const auto* out = static_cast<const int32_t*>(dst_plain.get_data_handle());
  const int64_t total = Elements(dst.get_desc());
  // An odd stride, so that the outputs checked do not all fall in the same few columns.
  const int64_t step = std::max<int64_t>(1, total / 20000) | 1;
  Int8Mismatch m;
  for (int64_t i = 0; i < total; i += step) {
    const int64_t d = std::llabs(ref(sp, wp, i) - out[i]);
    ++m.checked;
    if (d != 0) ++m.differing;
    m.max_abs = std::max(m.max_abs, d);
  }
  return m;
}

namespace {

// C[m×n] = A[m×k]·W with W's element (kk, col) at kk·k_stride + col·n_stride.
Int8Reference GemmReference(int64_t n, int64_t k, int64_t k_stride, int64_t n_stride) {
  return [=](const uint8_t* src, const int8_t* wei, int64_t i) {
    const int64_t row = i / n, col = i % n;
    int64_t sum = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      sum += int64_t{src[row * k + kk]} * wei[kk * k_stride + col * n_stride];
    }
    return sum;
  };
}

}  // namespace

// The matmul's weights are {k, n}; the inner product's {n, k}.
Int8Reference MatmulReference(int64_t n, int64_t k) {
  return GemmReference(n, k, /*k_stride=*/n, /*n_stride=*/1);
}

Int8Reference InnerProductReference(int64_t n, int64_t k) {
  return GemmReference(n, k, /*k_stride=*/1, /*n_stride=*/k);
}

Int8Reference ConvReference(const OneDnnConvShape& s) {
  const int64_t oh = (s.h + 2 * s.pad - s.r) / s.stride + 1;
  const int64_t ow = (s.w + 2 * s.pad - s.s) / s.stride + 1;
  return [s, oh, ow](const uint8_t* src, const int8_t* wei, int64_t i) {
    const int64_t x = i % ow, y = i / ow % oh, f = i / (ow * oh) % s.f, b = i / (ow * oh * s.f);
    int64_t sum = 0;
    for (int64_t c = 0; c < s.c; ++c) {
      for (int64_t r = 0; r < s.r; ++r) {
        for (int64_t q = 0; q < s.s; ++q) {
          const int64_t yy = y * s.stride + r - s.pad, xx = x * s.stride + q - s.pad;
          if (yy < 0 || yy >= s.h || xx < 0 || xx >= s.w) continue;
          sum += int64_t{src[((b * s.c + c) * s.h + yy) * s.w + xx]} *
                 wei[((f * s.c + c) * s.r + r) * s.s + q];
        }
      }
    }
    return sum;
  };
}

}  // namespace tunefarm::bench
