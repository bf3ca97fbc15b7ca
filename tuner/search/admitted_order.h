// The order in which a search strategy draws configs it has no better reason to pick (a random
// search, the random slots of the model-based search, the first generation of the genetic one,
// the grid): the configs the space's constraints admit (ConfigSpace::AddConstraint) first.
#ifndef TUNEFARM_TUNER_SEARCH_ADMITTED_ORDER_H_
#define TUNEFARM_TUNER_SEARCH_ADMITTED_ORDER_H_

#include <cstdint>
#include <optional>
#include <random>

#include "tuner/search/index_permutation.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

// Rejected draws in a row after which AdmittedOrder and DrawAdmitted give up and return a
// rejected config: a space whose constraints admit almost nothing is still searched.
inline constexpr int kMaxRejections = 1 << 16;

// Walks the indices of a space in a seeded random order (or in index order without a seed):
// first those the space admits; once they are all out, those it rejects, in the same order, so a
// small space is still exhausted. Within the first pass, a draw that follows kMaxRejections
// rejected ones is returned even if rejected (it comes again in the second pass: callers skip
// what they have proposed). `space` must outlive it.
class AdmittedOrder {
 public:
  AdmittedOrder(const ConfigSpace* space, std::optional<uint64_t> seed);

  // The next index, or nullopt once both passes are done.
  std::optional<int64_t> Next();

 private:
  int64_t At(int64_t i) const { return random_ ? perm_.At(i) : i; }

  const ConfigSpace* space_;
  bool random_;
  IndexPermutation perm_;
  bool second_pass_ = false;
  int64_t position_ = 0;
};

// A uniform random index that the space admits, drawn with `rng`; after kMaxRejections rejected
// draws, the last one.
int64_t DrawAdmitted(const ConfigSpace& space, std::mt19937_64& rng);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_ADMITTED_ORDER_H_
