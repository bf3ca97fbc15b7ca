// A config space: the product of a template's knobs. A config is an index into that product
// (mixed radix, first knob least significant); spaces of 10^9 points are never materialized.
//
//   ConfigSpace space;
//   space.DefineSplit("tile_y", 1024, 2, SplitPolicy::kFactors);
//   space.DefineOther("unroll_k", {1, 2, 4, 8});
//   Config c = *space.Get(12345);
//   std::vector<int64_t> f = *c.Split("tile_y");  // e.g. {128, 8}
//   c.ToJson();  // {"index": 12345, "tile_y": [-1, 8], "unroll_k": 2}
//
// A space may also hold constraints across knobs, as AutoTVM's ConfigSpace.multi_filter does:
// predicates over a config's choices that the search strategies keep to. They do not change the
// index domain (every index is still a config that builds); a strategy just does not propose a
// config that one of them rejects (search/admissible.h draws the admitted ones).
//
//   space.AddConstraint("registers", [](const std::vector<int64_t>& c) { return c[0] <= c[1]; });
//   space.Admits(12345);
#ifndef TUNEFARM_TUNER_SPACE_CONFIG_SPACE_H_
#define TUNEFARM_TUNER_SPACE_CONFIG_SPACE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/space/knob.h"

namespace tunefarm::tuner {

class ConfigSpace;

// One point of a config space.
struct Config {
  int64_t index = 0;
  // One choice per knob, in knob order.
  std::vector<int64_t> choices;
  const ConfigSpace* space = nullptr;

  // The choice of knob `name`: a split's factors (outermost first), a reorder's permutation, an
  // annotation, an "other" value. Internal: a name the space does not define, or a knob of
  // another kind (a bug in the template that asks; it fails the job instead of the process).
  absl::StatusOr<std::vector<int64_t>> Split(const std::string& name) const;
  absl::StatusOr<std::vector<int>> Reorder(const std::string& name) const;
  absl::StatusOr<std::string> Annotate(const std::string& name) const;
  absl::StatusOr<int64_t> Other(const std::string& name) const;
  // {"index": N, "<knob>": <value>, ...} in knob order.
  std::string ToJson() const;
};

class ConfigSpace {
 public:
  ConfigSpace() = default;
  ConfigSpace(const ConfigSpace&) = delete;
  ConfigSpace& operator=(const ConfigSpace&) = delete;

  void DefineSplit(const std::string& name, int64_t extent, int num_outputs, SplitPolicy policy,
                   int64_t max_factor = 0, std::vector<int64_t> candidates = {});
  void DefineReorder(const std::string& name, std::vector<std::vector<int>> permutations);
  void DefineAnnotate(const std::string& name, std::vector<std::string> options);
  void DefineOther(const std::string& name, std::vector<int64_t> values);

  // Number of points; saturates at 2^62 (such a space is still usable by index).
  int64_t size() const { return size_; }
  int num_knobs() const { return static_cast<int>(knobs_.size()); }
  const Knob& knob(int i) const { return *knobs_[i]; }
  // Index of the knob with `name`, or -1.
  int KnobIndex(const std::string& name) const;

  // Mixed-radix conversions; the first knob is the least significant digit.
  std::vector<int64_t> Decompose(int64_t index) const;
  int64_t Compose(const std::vector<int64_t>& choices) const;

  // OutOfRange: index outside [0, size).
  absl::StatusOr<Config> Get(int64_t index) const;
  // A constraint on the choices (one per knob, in knob order) named `name`; a config is admitted
  // when every constraint holds.
  using Constraint = std::function<bool(const std::vector<int64_t>& choices)>;
  void AddConstraint(std::string name, Constraint admits);
  int num_constraints() const { return static_cast<int>(constraints_.size()); }
  const std::string& constraint_name(int i) const { return constraints_[i].first; }
  bool Admits(const std::vector<int64_t>& choices) const;
  bool Admits(int64_t index) const { return constraints_.empty() || Admits(Decompose(index)); }

  // Concatenated Knob::Features of each knob's choice: the knob part of the model's features.
  std::vector<float> KnobFeatures(int64_t index) const;
  // "tile_y(sp,12) x unroll_k(ot,4) = 48 points", then the constraints' names
  // ("; constrained by registers").
  std::string Describe() const;

 private:
  void Add(std::unique_ptr<Knob> knob);

  std::vector<std::unique_ptr<Knob>> knobs_;
  int64_t size_ = 1;
  std::vector<std::pair<std::string, Constraint>> constraints_;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SPACE_CONFIG_SPACE_H_
