// What the deploy examples' applications share: buffers on the kernels' alignment, DLTensor
// views of them, and the median time of a kernel call. Header-only, for the applications that
// run.sh builds with the system compiler against an exported library (its kernels.h first).
#ifndef TUNEFARM_EXAMPLES_DEPLOY_UTIL_H_
#define TUNEFARM_EXAMPLES_DEPLOY_UTIL_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels.h"

namespace deploy {

// Storage on TF_KERNEL_ALIGNMENT-byte boundaries (kernels.h), as the farm's buffers.
template <typename T>
using Buffer = std::vector<T, tf_kernel_allocator<T>>;

// A DLTensor over `data` with `shape` (both outlive it); the dtype follows T.
template <typename T>
DLTensor Tensor(Buffer<T>& data, std::vector<int64_t>& shape) {
  DLTensor t{};
  t.data = data.data();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  const uint8_t code = std::is_floating_point_v<T> ? kDLFloat
                       : std::is_signed_v<T>       ? kDLInt
                                                   : kDLUInt;
  t.dtype = DLDataType{code, static_cast<uint8_t>(8 * sizeof(T)), 1};
  t.shape = shape.data();
  return t;
}

// The median of 7 timed runs of `call`, each the mean over enough calls to last about 20 ms,
// in milliseconds a call.
template <typename Call>
double MedianMs(Call call) {
  auto now = [] { return std::chrono::steady_clock::now(); };
  int calls = 1;
  for (;;) {
    auto t0 = now();
    for (int i = 0; i < calls; ++i) call();
    if (std::chrono::duration<double>(now() - t0).count() > 0.02 || calls > (1 << 20)) break;
    calls *= 2;
  }
  std::vector<double> ms;
  for (int r = 0; r < 7; ++r) {
    auto t0 = now();
    for (int i = 0; i < calls; ++i) call();
    ms.push_back(std::chrono::duration<double, std::milli>(now() - t0).count() / calls);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace deploy

#endif  // TUNEFARM_EXAMPLES_DEPLOY_UTIL_H_
