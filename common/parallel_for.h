// Runs fn(0) ... fn(n - 1) on up to `threads` threads (the caller's one of them), each index
// once, the next free index to the next free thread; returns when every call has returned. With
// threads <= 1 or n <= 1 the calls run in order on the caller's thread. fn must be safe to call
// from several threads at once with different indices.
#ifndef TUNEFARM_COMMON_PARALLEL_FOR_H_
#define TUNEFARM_COMMON_PARALLEL_FOR_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace tunefarm {

template <typename Fn>
void ParallelFor(size_t n, int threads, Fn&& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> pool;
  const size_t count = std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), n);
  for (size_t t = 1; t < count; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_PARALLEL_FOR_H_
