#include "common/parallel_for.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

TEST(ParallelFor, EveryIndexOnce) {
  for (int threads : {0, 1, 3, 64}) {
    std::vector<std::atomic<int>> calls(100);
    ParallelFor(calls.size(), threads, [&](size_t i) { ++calls[i]; });
    for (size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i], 1) << i << " " << threads;
  }
  ParallelFor(0, 4, [](size_t) { ADD_FAILURE() << "no index to run"; });
}

TEST(ParallelFor, OneThread_InOrderOnTheCaller) {
  std::vector<size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  ParallelFor(5, 1, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

// Two calls run at once: the first waits (at most 10 s) for the second to start.
TEST(ParallelFor, TwoThreads_CallsOverlap) {
  absl::Mutex mu;
  int started = 0, in_flight = 0, most = 0;
  ParallelFor(2, 2, [&](size_t) {
    absl::MutexLock lock(&mu);
    ++started;
    most = std::max(most, ++in_flight);
    mu.AwaitWithTimeout(absl::Condition(
                            +[](int* n) { return *n > 1; }, &started),
                        absl::Seconds(10));
    --in_flight;
  });
  EXPECT_EQ(most, 2);
}

}  // namespace
}  // namespace tunefarm
