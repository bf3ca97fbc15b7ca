// Schedule pieces shared by the CUDA templates.
#ifndef TUNEFARM_TUNER_TEMPLATES_GPU_COMMON_H_
#define TUNEFARM_TUNER_TEMPLATES_GPU_COMMON_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "compiler/ir/ir.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::tuner {

// The threads of a block, per index.
struct BlockThreads {
  int64_t z = 1, y = 1, x = 1;
};

// Cooperative fetching: a stage that fills a shared buffer is spread over the block's threads.
// Its loops are fused, split into `vector` lanes (vectorized global loads), then across
// threadIdx.x, .y and .z (the extents the compute uses: loops bound to one index read the
// same hardware index); what remains is a serial loop in every thread.
absl::Status CooperativeFetch(const std::string& template_name, schedule::Stage& stage,
                              const BlockThreads& threads, int64_t vector);

// Lanes for a vector fill of `dtype` along a contiguous run of `run` elements: at most
// `requested`, at most 16 bytes (the widest GPU load), and a divisor of `run`.
int64_t FillLanes(int64_t requested, ir::DataType dtype, int64_t run);

// A multiply-add operand: float16 inputs are widened so products accumulate in float32.
ir::Expr Widen(ir::Expr e);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_GPU_COMMON_H_
