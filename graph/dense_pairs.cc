#include "graph/dense_pairs.h"

namespace tunefarm::graph {

bool DensePairsFit(int64_t n, int64_t k) {
  const bool small = n <= 16, half_vector_left = n % 16 == 8 && n <= 56;
  return n > 0 && n % 8 == 0 && (small || half_vector_left) && k > 0 && k % 2 == 0;
}

std::vector<float> DensePairsWeight(const std::vector<float>& wt, int64_t n, int64_t k) {
  std::vector<float> pairs(wt.size());
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < k; ++i) {
      pairs[(((i / 2) * (n / 8) + j / 8) * 8 + j % 8) * 2 + i % 2] = wt[j * k + i];
    }
  }
  return pairs;
}

}  // namespace tunefarm::graph
