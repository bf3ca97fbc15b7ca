#include "tuner/space/knob.h"

#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tunefarm::tuner {
namespace {

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

}  // namespace

const char* Knob::TvmTag() const {
  switch (kind_) {
    case Kind::kSplit:
      return "sp";
    case Kind::kReorder:
      return "re";
    case Kind::kAnnotate:
      return "an";
    case Kind::kOther:
      return "ot";
  }
  return "ot";
}

SplitKnob::SplitKnob(std::string name, int64_t extent, int num_outputs, SplitPolicy policy,
                     int64_t max_factor, std::vector<int64_t> candidates)
    : Knob(std::move(name), Kind::kSplit), extent_(extent), num_outputs_(num_outputs) {
  if (max_factor <= 0) max_factor = extent;
  std::vector<int64_t> base;
  switch (policy) {
    case SplitPolicy::kFactors:
      base = Divisors(extent);
      break;
    case SplitPolicy::kPowerOfTwo:
      for (int64_t f = 1; f <= extent; f *= 2) base.push_back(f);
      break;
    case SplitPolicy::kCandidates:
      for (int64_t c : candidates) {
        if (c >= 1 && c <= extent) base.push_back(c);
      }
      if (base.empty()) base.push_back(1);
      break;
  }
  // Enumerate inner factors f1..f_{n-1}: each from `base`, product within the extent (exact
  // divisibility for kFactors).
  std::vector<int64_t> cur;
  std::function<void(int64_t)> rec = [&](int64_t remaining) {
    if (static_cast<int>(cur.size()) == num_outputs_ - 1) {
      choices_.push_back(cur);
      return;
    }
    for (int64_t f : base) {
      if (f > max_factor || f > remaining) continue;
      if (policy == SplitPolicy::kFactors && remaining % f != 0) continue;
      cur.push_back(f);
      rec(policy == SplitPolicy::kFactors ? remaining / f : (remaining + f - 1) / f);
      cur.pop_back();
    }
  };
  rec(extent);
  if (choices_.empty()) choices_.push_back(std::vector<int64_t>(num_outputs_ - 1, 1));
}

std::vector<int64_t> SplitKnob::Factors(int64_t i) const {
  const std::vector<int64_t>& inner = choices_[i];
  int64_t prod = 1;
  for (int64_t f : inner) prod *= f;
  std::vector<int64_t> out = {(extent_ + prod - 1) / prod};
  out.insert(out.end(), inner.begin(), inner.end());
  return out;
}

std::string SplitKnob::ValueJson(int64_t i) const {
  return absl::StrCat("[-1", choices_[i].empty() ? "" : ", ", absl::StrJoin(choices_[i], ", "),
                      "]");
}

std::vector<float> SplitKnob::Features(int64_t i) const {
  std::vector<float> out;
  for (int64_t f : Factors(i)) out.push_back(static_cast<float>(std::log2(static_cast<double>(f))));
  return out;
}

ReorderKnob::ReorderKnob(std::string name, std::vector<std::vector<int>> permutations)
    : Knob(std::move(name), Kind::kReorder), perms_(std::move(permutations)) {}

std::string ReorderKnob::ValueJson(int64_t i) const {
  return absl::StrCat("[", absl::StrJoin(perms_[i], ", "), "]");
}

std::vector<float> ReorderKnob::Features(int64_t i) const {
  std::vector<float> out;
  for (int p : perms_[i]) out.push_back(static_cast<float>(p));
  return out;
}

AnnotateKnob::AnnotateKnob(std::string name, std::vector<std::string> options)
    : Knob(std::move(name), Kind::kAnnotate), options_(std::move(options)) {}

std::string AnnotateKnob::ValueJson(int64_t i) const {
  return absl::StrCat("\"", options_[i], "\"");
}

std::vector<float> AnnotateKnob::Features(int64_t i) const {
  std::vector<float> out(options_.size(), 0.0f);
  out[i] = 1.0f;
  return out;
}

OtherKnob::OtherKnob(std::string name, std::vector<int64_t> values)
    : Knob(std::move(name), Kind::kOther), values_(std::move(values)) {}

std::string OtherKnob::ValueJson(int64_t i) const { return absl::StrCat(values_[i]); }

std::vector<float> OtherKnob::Features(int64_t i) const { return {static_cast<float>(values_[i])}; }

}  // namespace tunefarm::tuner
