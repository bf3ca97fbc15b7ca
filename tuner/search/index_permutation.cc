#include "tuner/search/index_permutation.h"

namespace tunefarm::tuner {
namespace {

// SplitMix64 finalizer: a cheap, well-mixing 64-bit hash.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

IndexPermutation::IndexPermutation(int64_t size, uint64_t seed) : size_(size < 0 ? 0 : size) {
  int bits = 2;
  while (bits < 62 && (int64_t{1} << bits) < size_) ++bits;
  if (bits % 2 != 0) ++bits;
  half_bits_ = bits / 2;
  half_mask_ = (uint64_t{1} << half_bits_) - 1;
  uint64_t k = seed;
  for (uint64_t& key : keys_) key = k = Mix(k);
}

uint64_t IndexPermutation::Encrypt(uint64_t x) const {
  uint64_t left = x >> half_bits_;
  uint64_t right = x & half_mask_;
  for (uint64_t key : keys_) {
    uint64_t next = left ^ (Mix(right ^ key) & half_mask_);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

int64_t IndexPermutation::At(int64_t i) const {
  // Cycle walking: the Feistel network permutes [0, 2^bits); following its cycle from an index
  // inside [0, size) until it lands inside again restricts it to a permutation of [0, size).
  uint64_t x = static_cast<uint64_t>(i);
  do {
    x = Encrypt(x);
  } while (x >= static_cast<uint64_t>(size_));
  return static_cast<int64_t>(x);
}

std::optional<int64_t> IndexPermutation::Next() {
  if (position_ >= size_) return std::nullopt;
  return At(position_++);
}

}  // namespace tunefarm::tuner
