#include "tuner/generated/knob_names.h"

#include "absl/strings/str_cat.h"

namespace tunefarm::tuner {

std::string KnobName(const te::Tensor& writer, absl::string_view what) {
  return absl::StrCat(writer.name(), ".", what);
}

std::string ReduceKnobName(const te::Tensor& writer, const te::IterVar& r) {
  for (const te::IterVar& s : writer.compute()->axis) {
    if (s->name() == r->name()) return KnobName(writer, absl::StrCat("tile_r_", r->name()));
  }
  return KnobName(writer, absl::StrCat("tile_", r->name()));
}

}  // namespace tunefarm::tuner
