#include "db/config_rank.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <tuple>
#include <utility>

namespace tunefarm::db {

double MedianFiniteCost(absl::Span<const double> costs_s) {
  std::vector<double> finite;
  for (double c : costs_s) {
    if (std::isfinite(c)) finite.push_back(c);
  }
  if (finite.empty()) return ConfigScore::kInf;
  std::sort(finite.begin(), finite.end());
  const size_t n = finite.size();
  return n % 2 == 1 ? finite[n / 2] : 0.5 * (finite[n / 2 - 1] + finite[n / 2]);
}

double RecordCost(const Record& r) {
  return r.valid() ? MedianFiniteCost(r.costs) : ConfigScore::kInf;
}

ConfigScore ScoreConfig(int64_t index, absl::Span<const double> costs_s) {
  ConfigScore s;
  s.index = index;
  const auto first =
      std::find_if(costs_s.begin(), costs_s.end(), [](double c) { return std::isfinite(c); });
  if (first == costs_s.end()) return s;
  s.first_s = *first;
  const absl::Span<const double> again = costs_s.subspan(first - costs_s.begin() + 1);
  s.runs = static_cast<int>(
      std::count_if(again.begin(), again.end(), [](double c) { return std::isfinite(c); }));
  s.confirmed = s.runs > 0;
  s.failed_again = !again.empty() && !s.confirmed;
  if (s.confirmed) {
    s.cost_s = MedianFiniteCost(again);
  } else {
    s.cost_s = s.first_s;
    s.runs = 1;
  }
  return s;
}

namespace {

// Pairs (first_s, rank_s) of configs measured again, sorted by first_s, with rank_s replaced by
// the running maximum: Floor(f) is the highest rank among those whose first run was no slower
// than f.
class Floors {
 public:
  void Add(const ConfigScore& c) { floors_.emplace_back(c.first_s, c.rank_s); }
  void Seal() {
    std::sort(floors_.begin(), floors_.end());
    for (size_t i = 1; i < floors_.size(); ++i) {
      floors_[i].second = std::max(floors_[i].second, floors_[i - 1].second);
    }
  }
  double Floor(double first_s) const {
    const auto beat = std::upper_bound(
        floors_.begin(), floors_.end(), first_s,
        [](double f, const std::pair<double, double>& fl) { return f < fl.first; });
    return beat == floors_.begin() ? 0 : std::prev(beat)->second;
  }

 private:
  std::vector<std::pair<double, double>> floors_;
};

// Confirmed configs before those that failed again, before those measured once.
int Tier(const ConfigScore& c) { return c.confirmed ? 0 : c.failed_again ? 1 : 2; }

}  // namespace

void SortByRank(std::vector<ConfigScore>& configs) {
  // Confirmed configs rank by their cost; the others never before a config measured again
  // whose first run was no slower than theirs: those that failed again by the confirmed ones,
  // those measured once by both.
  Floors confirmed;
  for (ConfigScore& c : configs) {
    c.rank_s = c.cost_s;
    if (c.confirmed) confirmed.Add(c);
  }
  confirmed.Seal();
  Floors measured_again = confirmed;
  for (ConfigScore& c : configs) {
    if (!c.failed_again) continue;
    c.rank_s = std::max(2 * c.cost_s, confirmed.Floor(c.first_s));
    measured_again.Add(c);
  }
  measured_again.Seal();
  for (ConfigScore& c : configs) {
    if (Tier(c) != 2 || !std::isfinite(c.cost_s)) continue;
    c.rank_s = std::max(c.cost_s, measured_again.Floor(c.first_s));
  }
  std::sort(configs.begin(), configs.end(), [](const ConfigScore& a, const ConfigScore& b) {
    return std::make_tuple(a.rank_s, Tier(a), a.index) <
           std::make_tuple(b.rank_s, Tier(b), b.index);
  });
}

}  // namespace tunefarm::db
