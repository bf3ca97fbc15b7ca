// Service metrics in Prometheus' text exposition format (version 0.0.4): histograms and
// labelled counters that services update as they work, and the writer that renders them, with
// gauges read at scrape time, for `GET /metrics`. Debian packages no Prometheus client library
// for C++, and the format is a few lines of text per sample, so it is written here.
#ifndef TUNEFARM_COMMON_METRICS_H_
#define TUNEFARM_COMMON_METRICS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace tunefarm {

// A distribution over fixed buckets. Thread-safe; Observe costs a lock and a binary search.
class Histogram {
 public:
  // What Read returns: the bounds, the count of each bucket (not cumulative; one more than the
  // bounds, the last is +Inf), the sum and count of all observations.
  struct Snapshot {
    std::vector<double> upper_bounds;
    std::vector<uint64_t> counts;
    double sum = 0;
    uint64_t count = 0;
  };

  // `upper_bounds` ascending; an observation lands in the first bucket whose bound it does not
  // exceed, or in +Inf.
  explicit Histogram(std::vector<double> upper_bounds);
  // Bounds from 100 us to 10 s, for latencies in seconds.
  static std::vector<double> LatencyBoundsSeconds();

  void Observe(double value);
  Snapshot Read() const;

 private:
  const std::vector<double> upper_bounds_;
  mutable absl::Mutex mu_;
  std::vector<uint64_t> counts_ ABSL_GUARDED_BY(mu_);
  double sum_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t count_ ABSL_GUARDED_BY(mu_) = 0;
};

// Counters told apart by the value of one label (e.g. results by error class). Thread-safe.
class LabeledCounter {
 public:
  void Add(absl::string_view label_value, double amount = 1);
  // Every label value seen, in order, with its total.
  std::map<std::string, double> Read() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, double, std::less<>> values_ ABSL_GUARDED_BY(mu_);
};

// Builds one exposition: each family's HELP and TYPE lines, then its samples. Names must match
// [a-zA-Z_:][a-zA-Z0-9_:]* (they are the program's constants; checked); label values are escaped.
class PrometheusText {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;

  // Starts a family; `type` is "counter", "gauge" or "histogram".
  void Family(absl::string_view name, absl::string_view type, absl::string_view help);
  // One sample of the current family (`name` may carry a suffix such as _total).
  void Sample(absl::string_view name, const Labels& labels, double value);
  // A whole histogram family: _bucket samples (cumulative, with le="+Inf"), _sum and _count.
  void Histogram(absl::string_view name, absl::string_view help,
                 const tunefarm::Histogram::Snapshot& snapshot);
  // A counter family `name`_total with one sample per label value of `counter`, labelled
  // `label`.
  void Counter(absl::string_view name, absl::string_view help, absl::string_view label,
               const LabeledCounter& counter);

  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// The Content-Type of PrometheusText's output.
inline constexpr char kPrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_METRICS_H_
