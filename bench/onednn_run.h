// oneDNN as a benchmark baseline, run at its best: primitives created with the layouts oneDNN
// prefers (format any) for weights, sources and destinations, every reorder and weight
// transform of a constant done once at creation, outside the timed call. Run() then executes
// the primitives of the operation itself (and the reorder of an activation oneDNN wants in
// another layout: OneDnnMatmul's kActivationReordered).
#ifndef TUNEFARM_BENCH_ONEDNN_RUN_H_
#define TUNEFARM_BENCH_ONEDNN_RUN_H_

#include <cstdint>
#include <dnnl.hpp>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tunefarm::bench {

// oneDNN primitives run in order on memories filled with small values.
struct OneDnnRun {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{eng};
  std::vector<std::pair<dnnl::primitive, std::unordered_map<int, dnnl::memory>>> steps;
  // The implementation oneDNN chose for each step, e.g. "brg:avx512_core" (its ISA shows that
  // the baseline runs the kernels this core is best at).
  std::vector<std::string> impls;

  // A memory of `d` filled with small values of its data type.
  dnnl::memory Make(const dnnl::memory::desc& d);
  void Run();
  // The implementations joined with '+'.
  std::string Impl() const;
};
using OneDnnPtr = std::shared_ptr<OneDnnRun>;

// Element types of a GEMM or convolution: fp32 everywhere, or the quantized u8 × s8 → s32.
enum class OneDnnTypes { kF32, kU8S8S32 };

// How a matmul's second operand W reaches oneDNN. A dense layer's W is a constant weight, laid
// out by oneDNN once, outside the timed call (format any). A batched matmul's W is an activation
// (attention's keys or values): another operator wrote it as [n×k] per batch on this call, so
// oneDNN either reads it in that layout (its kernels copy or transpose what they need inside
// the call) or reorders it to the layout it prefers, the reorder timed with the call.
enum class MatmulWeight { kConstant, kActivationAsIs, kActivationReordered };

// C[m×n] = A[m×k]·Wᵀ (W is [n×k]) with the matmul primitive; batch > 1: a batched matmul of
// `batch` independent products.
OneDnnPtr OneDnnMatmul(int64_t batch, int64_t m, int64_t n, int64_t k, OneDnnTypes types,
                       MatmulWeight weight = MatmulWeight::kConstant);
// The same dense layer with the inner-product primitive (batch 1 only).
OneDnnPtr OneDnnInnerProduct(int64_t m, int64_t n, int64_t k, OneDnnTypes types);

// A 2-D convolution, batch n, no bias, square padding; `depthwise`: one filter per channel
// (groups = c, f must equal c).
struct OneDnnConvShape {
  int64_t n = 1, c = 0, h = 0, w = 0, f = 0, r = 0, s = 0, stride = 1, pad = 0;
  bool depthwise = false;
};
// `algorithm`: convolution_direct or convolution_winograd (which oneDNN refuses for shapes and
// types it has no Winograd kernel for: a dnnl::error, like every other refusal).
OneDnnPtr OneDnnConv(const OneDnnConvShape& shape, OneDnnTypes types,
                     dnnl::algorithm algorithm = dnnl::algorithm::convolution_direct);

// How far an int8 (u8 × s8 → s32) oneDNN kernel is from the exact integer result, on
// full-range bytes. Not every such kernel computes the operation: the Winograd convolution
// requantizes its transformed tiles to 8 bits, and on a core without VNNI the direct kernels
// and the GEMMs sum pairs of products in int16 with saturation (vpmaddubsw) or halve the
// weights to avoid it (oneDNN's "Nuances of int8 computations").
struct Int8Mismatch {
  int64_t differing = 0;  // Outputs checked that differ from the exact result.
  int64_t checked = 0;
  int64_t max_abs = 0;  // The largest |difference|.
};
// The exact output at row-major index `i` of the destination from the row-major source and
// weights (their dims as the primitive's descriptors give them).
using Int8Reference = std::function<int64_t(const uint8_t* src, const int8_t* wei, int64_t i)>;
// Runs `run` (one u8 × s8 → s32 primitive) on full-range source and weights, reordered into its
// layouts, and compares outputs spread over the destination (at most about 20,000) with `ref`.
// Leaves those values in `run`'s memories (a kernel's time does not depend on them).
Int8Mismatch CheckInt8(OneDnnRun& run, const Int8Reference& ref);
// The references of the three operations, for the descriptors OneDnnMatmul (batch 1),
// OneDnnInnerProduct and OneDnnConv (not depthwise) create.
Int8Reference MatmulReference(int64_t n, int64_t k);
Int8Reference InnerProductReference(int64_t n, int64_t k);
Int8Reference ConvReference(const OneDnnConvShape& shape);

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_ONEDNN_RUN_H_
