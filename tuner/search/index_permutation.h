// A seeded pseudo-random permutation of [0, size) that is walked one index at a time in O(1)
// memory, so spaces of 10^9+ points can be sampled without replacement and still be exhausted
// exactly. It is a 4-round Feistel network on the smallest even number of bits that covers
// `size`, with cycle walking to stay inside [0, size) (under 4 rounds of walking on average).
#ifndef TUNEFARM_TUNER_SEARCH_INDEX_PERMUTATION_H_
#define TUNEFARM_TUNER_SEARCH_INDEX_PERMUTATION_H_

#include <cstdint>
#include <optional>

namespace tunefarm::tuner {

class IndexPermutation {
 public:
  // `size` >= 0 (0 gives an empty permutation).
  IndexPermutation(int64_t size, uint64_t seed);

  // The next index of the permutation, or nullopt once all `size` have been returned.
  std::optional<int64_t> Next();
  // The i-th element of the permutation, 0 <= i < size.
  int64_t At(int64_t i) const;
  // How many indices Next has returned.
  int64_t position() const { return position_; }
  int64_t size() const { return size_; }

 private:
  uint64_t Encrypt(uint64_t x) const;

  int64_t size_;
  int half_bits_;
  uint64_t half_mask_;
  uint64_t keys_[4];
  int64_t position_ = 0;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_INDEX_PERMUTATION_H_
