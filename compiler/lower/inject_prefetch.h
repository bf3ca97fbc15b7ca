// Software prefetch (Stage::Prefetch): a loop with a "prefetch:<buffer>" pragma, valued a
// distance in bytes, gets at the start of its body one prefetch per 64-byte line of what its body
// reads of that buffer that many bytes further along each stream.
//
// Runs after storage flattening and vectorization, before unrolling: a load is then one flat
// index (a Ramp for a vector), and the loops inside the body are still loops. A load is described
// when its index is affine in the pragma's loop variable (a nonzero stride: the stream moves with
// the loop) and in the variables of the loops inside the body (constant bounds). Those inner
// variables whose step leaves no gap of a cache line beyond the part the smaller steps cover,
// taken in increasing step, make one contiguous run; the rest are enumerated as separate runs
// (a row of a tile each, at most kMaxPrefetchRuns of them). Each run is prefetched as it will be
// ceil(distance / stride in bytes) iterations ahead. A load not of this form, or one that would
// need more than kMaxPrefetchLines prefetches per iteration, gets none: a prefetch is a hint, and
// leaving one out never changes a result.
#ifndef TUNEFARM_COMPILER_LOWER_INJECT_PREFETCH_H_
#define TUNEFARM_COMPILER_LOWER_INJECT_PREFETCH_H_

#include <cstdint>

#include "compiler/ir/ir.h"

namespace tunefarm::lower {

// Evaluate(Call(int32, kPrefetchIntrinsic, {Load(buffer, {index})})): prefetch the line holding
// that element for reading. The load only names the address: nothing is read, and an address
// past the buffer's end (the last iterations' look-ahead) is harmless.
inline constexpr char kPrefetchIntrinsic[] = "prefetch";
inline constexpr int64_t kPrefetchLineBytes = 64;
inline constexpr int64_t kMaxPrefetchRuns = 16;
inline constexpr int64_t kMaxPrefetchLines = 32;

ir::Stmt InjectPrefetch(ir::Stmt s);

// Whether `s` is a prefetch statement made by InjectPrefetch.
bool IsPrefetch(const ir::Stmt& s);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_INJECT_PREFETCH_H_
