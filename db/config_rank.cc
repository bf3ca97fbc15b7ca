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

void SortByRank(std::vector<ConfigScore>& configs) {
  // The confirmed configs by first run, each with the highest cost among those whose first run
  // was no slower: a config measured once ranks no better than that cost at its first run.
  std::vector<std::pair<double, double>> floors;  // (first_s, running max of cost_s)
  for (const ConfigScore& c : configs) {
    if (c.confirmed) floors.emplace_back(c.first_s, c.cost_s);
  }
  std::sort(floors.begin(), floors.end());
  for (size_t i = 1; i < floors.size(); ++i) {
    floors[i].second = std::max(floors[i].second, floors[i - 1].second);
  }
  for (ConfigScore& c : configs) {
    c.rank_s = c.cost_s;
    if (c.confirmed || !std::isfinite(c.cost_s)) continue;
    if (c.failed_again) c.rank_s *= 2;
    const auto beat = std::upper_bound(
        floors.begin(), floors.end(), c.first_s,
        [](double first_s, const std::pair<double, double>& f) { return first_s < f.first; });
    if (beat != floors.begin()) c.rank_s = std::max(c.rank_s, std::prev(beat)->second);
  }
  std::sort(configs.begin(), configs.end(), [](const ConfigScore& a, const ConfigScore& b) {
    return std::make_tuple(a.rank_s, !a.confirmed, a.index) <
           std::make_tuple(b.rank_s, !b.confirmed, b.index);
  });
}

}  // namespace tunefarm::db
