// Knobs: the independent choices a schedule template exposes, in AutoTVM's manner.
//
//   split     factors that multiply to (at least) a loop's extent, e.g. [-1, 8, 4]
//   reorder   a permutation of some loops
//   annotate  unroll / vectorize / none on a loop
//   other     a value from a list (unroll depth, vector width, a boolean)
//
// A knob is a finite list of choices; the config space is their product.
#ifndef TUNEFARM_TUNER_SPACE_KNOB_H_
#define TUNEFARM_TUNER_SPACE_KNOB_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tunefarm::tuner {

class Knob {
 public:
  enum class Kind { kSplit, kReorder, kAnnotate, kOther };
  virtual ~Knob() = default;

  const std::string& name() const { return name_; }
  Kind kind() const { return kind_; }
  // Number of choices (at least 1).
  virtual int64_t size() const = 0;
  // Choice `i` as a JSON value: [f0, f1, ...], [p0, p1, ...], "unroll", 16.
  virtual std::string ValueJson(int64_t i) const = 0;
  // Numeric encoding of choice `i` for the cost model; the same length for every choice.
  virtual std::vector<float> Features(int64_t i) const = 0;
  // AutoTVM's knob-type tag: "sp", "re", "an", "ot".
  const char* TvmTag() const;

 protected:
  Knob(std::string name, Kind kind) : name_(std::move(name)), kind_(kind) {}

 private:
  std::string name_;
  Kind kind_;
};

// How a split knob enumerates factors.
enum class SplitPolicy {
  kFactors,     // Inner factors divide the extent exactly (no guards needed).
  kPowerOfTwo,  // Inner factors are powers of two up to the extent (tails are guarded).
  kCandidates,  // Inner factors come from an explicit list.
};

// Splits a loop of `extent` into `num_outputs` parts. Choice = the inner factors; the outermost
// part is the remaining extent (ceil), written as -1 in JSON like AutoTVM.
class SplitKnob : public Knob {
 public:
  // `max_factor` bounds every inner factor (0 = no bound); `candidates` is used by kCandidates.
  SplitKnob(std::string name, int64_t extent, int num_outputs, SplitPolicy policy,
            int64_t max_factor = 0, std::vector<int64_t> candidates = {});
  int64_t size() const override { return static_cast<int64_t>(choices_.size()); }
  std::string ValueJson(int64_t i) const override;
  std::vector<float> Features(int64_t i) const override;
  // [outer, f1, ..., f_{n-1}] with outer = ceil(extent / Π f).
  std::vector<int64_t> Factors(int64_t i) const;
  int64_t extent() const { return extent_; }
  int num_outputs() const { return num_outputs_; }

 private:
  int64_t extent_;
  int num_outputs_;
  std::vector<std::vector<int64_t>> choices_;  // Inner factors of each choice.
};

// Chooses one of a list of permutations of `n` loops.
class ReorderKnob : public Knob {
 public:
  ReorderKnob(std::string name, std::vector<std::vector<int>> permutations);
  int64_t size() const override { return static_cast<int64_t>(perms_.size()); }
  std::string ValueJson(int64_t i) const override;
  std::vector<float> Features(int64_t i) const override;
  const std::vector<int>& Permutation(int64_t i) const { return perms_[i]; }

 private:
  std::vector<std::vector<int>> perms_;
};

// Chooses an annotation such as "none", "unroll", "vectorize", "parallel".
class AnnotateKnob : public Knob {
 public:
  AnnotateKnob(std::string name, std::vector<std::string> options);
  int64_t size() const override { return static_cast<int64_t>(options_.size()); }
  std::string ValueJson(int64_t i) const override;
  std::vector<float> Features(int64_t i) const override;
  const std::string& Option(int64_t i) const { return options_[i]; }

 private:
  std::vector<std::string> options_;
};

// Chooses one integer from a list.
class OtherKnob : public Knob {
 public:
  OtherKnob(std::string name, std::vector<int64_t> values);
  int64_t size() const override { return static_cast<int64_t>(values_.size()); }
  std::string ValueJson(int64_t i) const override;
  std::vector<float> Features(int64_t i) const override;
  int64_t Value(int64_t i) const { return values_[i]; }

 private:
  std::vector<int64_t> values_;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SPACE_KNOB_H_
