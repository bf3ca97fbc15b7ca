#include "tuner/space/config_space.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tunefarm::tuner {
namespace {

constexpr int64_t kMaxSize = int64_t{1} << 62;

// The knob `name` of c's space with the config's choice for it. Internal: a template asked for a
// knob its DefineSpace did not define, or for one of another kind (a bug in the template; its
// job fails, the service goes on).
template <typename T>
absl::StatusOr<std::pair<const T*, int64_t>> KnobAs(const Config& c, const std::string& name,
                                                    Knob::Kind kind) {
  const int i = c.space == nullptr ? -1 : c.space->KnobIndex(name);
  if (i < 0) {
    return absl::InternalError(
        absl::StrCat("the template reads knob '", name, "', which its space does not define"));
  }
  const Knob& k = c.space->knob(i);
  if (k.kind() != kind) {
    return absl::InternalError(
        absl::StrCat("the template reads knob '", name, "' as another kind than it defined"));
  }
  return std::make_pair(static_cast<const T*>(&k), c.choices[i]);
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> Config::Split(const std::string& name) const {
  absl::StatusOr<std::pair<const SplitKnob*, int64_t>> k =
      KnobAs<SplitKnob>(*this, name, Knob::Kind::kSplit);
  if (!k.ok()) return k.status();
  return k->first->Factors(k->second);
}

absl::StatusOr<std::vector<int>> Config::Reorder(const std::string& name) const {
  absl::StatusOr<std::pair<const ReorderKnob*, int64_t>> k =
      KnobAs<ReorderKnob>(*this, name, Knob::Kind::kReorder);
  if (!k.ok()) return k.status();
  return k->first->Permutation(k->second);
}

absl::StatusOr<std::string> Config::Annotate(const std::string& name) const {
  absl::StatusOr<std::pair<const AnnotateKnob*, int64_t>> k =
      KnobAs<AnnotateKnob>(*this, name, Knob::Kind::kAnnotate);
  if (!k.ok()) return k.status();
  return k->first->Option(k->second);
}

absl::StatusOr<int64_t> Config::Other(const std::string& name) const {
  absl::StatusOr<std::pair<const OtherKnob*, int64_t>> k =
      KnobAs<OtherKnob>(*this, name, Knob::Kind::kOther);
  if (!k.ok()) return k.status();
  return k->first->Value(k->second);
}

std::string Config::ToJson() const {
  std::string out = absl::StrCat("{\"index\": ", index);
  for (int i = 0; i < space->num_knobs(); ++i) {
    absl::StrAppend(&out, ", \"", space->knob(i).name(),
                    "\": ", space->knob(i).ValueJson(choices[i]));
  }
  return out + "}";
}

void ConfigSpace::Add(std::unique_ptr<Knob> knob) {
  int64_t n = knob->size();
  size_ = (n > 0 && size_ > kMaxSize / n) ? kMaxSize : size_ * n;
  knobs_.push_back(std::move(knob));
}

void ConfigSpace::DefineSplit(const std::string& name, int64_t extent, int num_outputs,
                              SplitPolicy policy, int64_t max_factor,
                              std::vector<int64_t> candidates) {
  Add(std::make_unique<SplitKnob>(name, extent, num_outputs, policy, max_factor,
                                  std::move(candidates)));
}

void ConfigSpace::DefineReorder(const std::string& name,
                                std::vector<std::vector<int>> permutations) {
  Add(std::make_unique<ReorderKnob>(name, std::move(permutations)));
}

void ConfigSpace::DefineAnnotate(const std::string& name, std::vector<std::string> options) {
  Add(std::make_unique<AnnotateKnob>(name, std::move(options)));
}

void ConfigSpace::DefineOther(const std::string& name, std::vector<int64_t> values) {
  Add(std::make_unique<OtherKnob>(name, std::move(values)));
}

int ConfigSpace::KnobIndex(const std::string& name) const {
  for (size_t i = 0; i < knobs_.size(); ++i) {
    if (knobs_[i]->name() == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int64_t> ConfigSpace::Decompose(int64_t index) const {
  std::vector<int64_t> out;
  out.reserve(knobs_.size());
  for (const auto& k : knobs_) {
    out.push_back(index % k->size());
    index /= k->size();
  }
  return out;
}

int64_t ConfigSpace::Compose(const std::vector<int64_t>& choices) const {
  int64_t index = 0;
  for (int i = static_cast<int>(knobs_.size()) - 1; i >= 0; --i) {
    index = index * knobs_[i]->size() + choices[i];
  }
  return index;
}

absl::StatusOr<Config> ConfigSpace::Get(int64_t index) const {
  if (index < 0 || index >= size_) {
    return absl::OutOfRangeError(
        absl::StrCat("config index ", index, " is outside the space [0, ", size_, ")"));
  }
  return Config{index, Decompose(index), this};
}

std::vector<float> ConfigSpace::KnobFeatures(int64_t index) const {
  std::vector<int64_t> choices = Decompose(index);
  std::vector<float> out;
  for (size_t i = 0; i < knobs_.size(); ++i) {
    std::vector<float> f = knobs_[i]->Features(choices[i]);
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

void ConfigSpace::AddConstraint(std::string name, Constraint admits) {
  constraints_.emplace_back(std::move(name), std::move(admits));
}

bool ConfigSpace::Admits(const std::vector<int64_t>& choices) const {
  for (const auto& [name, admits] : constraints_) {
    if (!admits(choices)) return false;
  }
  return true;
}

std::string ConfigSpace::Describe() const {
  std::vector<std::string> parts;
  for (const auto& k : knobs_)
    parts.push_back(absl::StrCat(k->name(), "(", k->TvmTag(), ",", k->size(), ")"));
  std::string out = absl::StrCat(absl::StrJoin(parts, " x "), " = ", size_, " points");
  if (!constraints_.empty()) {
    std::vector<std::string> names;
    for (const auto& c : constraints_) names.push_back(c.first);
    absl::StrAppend(&out, "; constrained by ", absl::StrJoin(names, ", "));
  }
  return out;
}

}  // namespace tunefarm::tuner
