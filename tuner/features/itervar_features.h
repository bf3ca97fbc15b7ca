// AutoTVM-style "itervar" features of a lowered loop nest: a fixed-length vector describing the
// loops around the hottest statement and how each buffer is accessed at each loop level.
//
// The hot statement is the store with the largest trip count (product of the constant extents
// of its enclosing loops; the first such store in program order on ties). Its enclosing loops,
// outermost first, are the nest's levels; when there are more than kMaxLoops, the innermost
// kMaxLoops are kept. "The body" is the innermost of those loops' body (after lowering it holds
// the unrolled replicas and vector operations of one innermost iteration).
//
// Layout (kItervarFeatureLength floats; absent loops and buffers are all zero; "lg(x)" means
// log2(1 + x), which keeps magnitudes comparable for the trees):
//
//   [0, kGlobalFeatures)                      global
//     0 lg(trip count of the hot store)       5 lg(float divisions + intrinsic calls)
//     1 number of levels                      6 lg(loads in the body, lane-weighted)
//     2 lg(float adds/subs in the body)       7 lg(stores in the body, lane-weighted)
//     3 lg(float muls in the body)            8 widest vector lanes in the body
//     4 lg(fma estimate = min(adds, muls))    9 number of buffers touched in the body
//    10 lg(stores with the hot trip count: replicas of the hot statement made by unrolling
//       loops outside the innermost level)
//   then kMaxLoops x kLoopFeatures            loop level l (0 = outermost)
//     0 lg(extent)   1 serial   2 parallel   3 vectorized   4 unrolled   5 thread-bound
//     6 lg(iterations of this level and every level inside it)
//     7 levels inside this one (position from the innermost)
//   then kMaxBuffers x kBufferFeatures        buffers sorted by accesses in the body (desc),
//                                             then by name
//     0 lg(accesses in the body)   1 written (0/1)   2 vector lanes of its widest access
//     3 lg(|lane stride| of its Ramp index, elements)
//     then per level l, kBufferLoopFeatures:
//       0 lg(|stride| w.r.t. level l's variable, elements; 0 when the index does not use it)
//       1 lg(bytes touched by one full run of level l and the levels inside it)
//       2 lg(reuse: accesses in that run / distinct elements touched)
//
// Strides come from the linear coefficients of the flat index in each loop variable; index
// parts that are not linear (divisions, modulo, min/max) count as stride 1 in their variables.
// Footprints assume distinct iterations touch distinct elements along every variable with a
// nonzero stride, capped at the buffer's size when it is known.
#ifndef TUNEFARM_TUNER_FEATURES_ITERVAR_FEATURES_H_
#define TUNEFARM_TUNER_FEATURES_ITERVAR_FEATURES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/lower/lowered_func.h"

namespace tunefarm::tuner {

inline constexpr int kMaxLoops = 12;
inline constexpr int kMaxBuffers = 5;
inline constexpr int kGlobalFeatures = 11;
inline constexpr int kLoopFeatures = 8;
inline constexpr int kBufferLoopFeatures = 3;
inline constexpr int kBufferFeatures = 4 + kMaxLoops * kBufferLoopFeatures;
inline constexpr int kItervarFeatureLength =
    kGlobalFeatures + kMaxLoops * kLoopFeatures + kMaxBuffers * kBufferFeatures;

// Offsets into the vector, for tests and for reading features back.
inline constexpr int LoopFeatureOffset(int level) {
  return kGlobalFeatures + level * kLoopFeatures;
}
inline constexpr int BufferFeatureOffset(int buffer) {
  return kGlobalFeatures + kMaxLoops * kLoopFeatures + buffer * kBufferFeatures;
}
inline constexpr int BufferLoopFeatureOffset(int buffer, int level) {
  return BufferFeatureOffset(buffer) + 4 + level * kBufferLoopFeatures;
}

// Features of a lowered kernel; argument shapes bound the footprints.
// InvalidArgument: the body is undefined or stores nothing.
absl::StatusOr<std::vector<float>> ExtractItervarFeatures(const lower::LoweredFunc& func);
// Features of a bare loop nest (only Allocate nodes inside it give buffer sizes).
absl::StatusOr<std::vector<float>> ExtractItervarFeatures(const ir::Stmt& body);

// The model's input row for one config: loop-nest features followed by the config's knob
// features (ConfigSpace::KnobFeatures).
std::vector<float> ConfigFeatures(const std::vector<float>& itervar,
                                  const std::vector<float>& knob_features);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_FEATURES_ITERVAR_FEATURES_H_
