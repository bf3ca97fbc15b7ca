#include "tuner/search/admitted_order.h"

namespace tunefarm::tuner {

AdmittedOrder::AdmittedOrder(const ConfigSpace* space, std::optional<uint64_t> seed)
    : space_(space),
      random_(seed.has_value()),
      perm_(seed.has_value() ? space->size() : 0, seed.value_or(0)) {}

std::optional<int64_t> AdmittedOrder::Next() {
  const int64_t size = space_->size();
  int rejected = 0;
  while (true) {
    if (position_ >= size) {
      // Without constraints the first pass returned everything.
      if (second_pass_ || space_->num_constraints() == 0) return std::nullopt;
      second_pass_ = true;
      position_ = 0;
    }
    const int64_t index = At(position_++);
    const bool admitted = space_->Admits(index);
    if (second_pass_ ? !admitted : admitted) return index;
    if (!second_pass_ && ++rejected >= kMaxRejections) return index;
  }
}

int64_t DrawAdmitted(const ConfigSpace& space, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> any(0, space.size() - 1);
  int64_t index = any(rng);
  for (int i = 1; i < kMaxRejections && !space.Admits(index); ++i) index = any(rng);
  return index;
}

}  // namespace tunefarm::tuner
