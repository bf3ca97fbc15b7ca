#include "tuner/search/index_permutation.h"

#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

TEST(IndexPermutation, Next_SmallSizes_VisitsEachIndexOnceThenEnds) {
  for (int64_t size : {0, 1, 2, 3, 5, 17, 100, 1000, 4097}) {
    IndexPermutation p(size, /*seed=*/size * 31 + 7);
    std::set<int64_t> seen;
    while (std::optional<int64_t> i = p.Next()) {
      ASSERT_GE(*i, 0);
      ASSERT_LT(*i, size);
      ASSERT_TRUE(seen.insert(*i).second) << "duplicate " << *i << " for size " << size;
    }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), size);
    EXPECT_FALSE(p.Next().has_value());
  }
}

TEST(IndexPermutation, At_DifferentSeeds_DifferentOrders) {
  IndexPermutation a(1000, 1), b(1000, 2), c(1000, 1);
  int same = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    same += a.At(i) == b.At(i);
    EXPECT_EQ(a.At(i), c.At(i));
  }
  EXPECT_LT(same, 20);
}

TEST(IndexPermutation, Next_HugeSpace_DistinctInRange) {
  const int64_t size = int64_t{3} * 1000 * 1000 * 1000 * 1000;
  IndexPermutation p(size, 42);
  std::set<int64_t> seen;
  for (int k = 0; k < 20000; ++k) {
    int64_t i = *p.Next();
    ASSERT_GE(i, 0);
    ASSERT_LT(i, size);
    ASSERT_TRUE(seen.insert(i).second);
  }
}

}  // namespace
}  // namespace tunefarm::tuner
