#include "common/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/base/internal/raw_logging.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace tunefarm {
namespace {

bool ValidName(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return absl::ascii_isalnum(c) || c == '_' || c == ':'; });
}

// Label values escape backslash, double quote and newline; HELP text backslash and newline.
std::string Escape(absl::string_view s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Shortest text that reads back as the same double ("0.1", not "0.10000000000000001").
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, ec == std::errc() ? end : buf);
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)), counts_(upper_bounds_.size() + 1, 0) {
  ABSL_RAW_CHECK(std::is_sorted(upper_bounds_.begin(), upper_bounds_.end()),
                 "histogram bounds must ascend");
}

std::vector<double> Histogram::LatencyBoundsSeconds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};
}

void Histogram::Observe(double value) {
  size_t bucket =
      std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), value) - upper_bounds_.begin();
  absl::MutexLock lock(&mu_);
  ++counts_[bucket];
  sum_ += value;
  ++count_;
}

Histogram::Snapshot Histogram::Read() const {
  absl::MutexLock lock(&mu_);
  return Snapshot{upper_bounds_, counts_, sum_, count_};
}

void LabeledCounter::Add(absl::string_view label_value, double amount) {
  absl::MutexLock lock(&mu_);
  auto it = values_.find(label_value);
  if (it == values_.end()) it = values_.emplace(std::string(label_value), 0).first;
  it->second += amount;
}

std::map<std::string, double> LabeledCounter::Read() const {
  absl::MutexLock lock(&mu_);
  return std::map<std::string, double>(values_.begin(), values_.end());
}

void PrometheusText::Family(absl::string_view name, absl::string_view type,
                            absl::string_view help) {
  ABSL_RAW_CHECK(ValidName(name), "bad metric name");
  absl::StrAppend(&text_, "# HELP ", name, " ", Escape(help, /*quote=*/false), "\n", "# TYPE ",
                  name, " ", type, "\n");
}

void PrometheusText::Sample(absl::string_view name, const Labels& labels, double value) {
  ABSL_RAW_CHECK(ValidName(name), "bad metric name");
  absl::StrAppend(&text_, name);
  if (!labels.empty()) {
    text_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      ABSL_RAW_CHECK(ValidName(labels[i].first), "bad label name");
      absl::StrAppend(&text_, i == 0 ? "" : ",", labels[i].first, "=\"",
                      Escape(labels[i].second, /*quote=*/true), "\"");
    }
    text_ += '}';
  }
  absl::StrAppend(&text_, " ", FormatValue(value), "\n");
}

void PrometheusText::Histogram(absl::string_view name, absl::string_view help,
                               const tunefarm::Histogram::Snapshot& snapshot) {
  Family(name, "histogram", help);
  const std::string bucket = absl::StrCat(name, "_bucket");
  uint64_t cumulative = 0;
  for (size_t i = 0; i < snapshot.upper_bounds.size(); ++i) {
    cumulative += snapshot.counts[i];
    Sample(bucket, {{"le", FormatValue(snapshot.upper_bounds[i])}},
           static_cast<double>(cumulative));
  }
  Sample(bucket, {{"le", "+Inf"}}, static_cast<double>(snapshot.count));
  Sample(absl::StrCat(name, "_sum"), {}, snapshot.sum);
  Sample(absl::StrCat(name, "_count"), {}, static_cast<double>(snapshot.count));
}

void PrometheusText::Counter(absl::string_view name, absl::string_view help,
                             absl::string_view label, const LabeledCounter& counter) {
  // In the text format a counter's HELP and TYPE lines name the sample itself, _total included
  // (parsers that group samples by family look for exactly that name).
  const std::string total_name = absl::StrCat(name, "_total");
  Family(total_name, "counter", help);
  for (const auto& [value, total] : counter.Read()) {
    Sample(total_name, {{std::string(label), value}}, total);
  }
}

}  // namespace tunefarm
