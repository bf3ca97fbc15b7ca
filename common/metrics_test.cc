#include "common/metrics.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

TEST(HistogramTest, Observe_CountsEachBucketAndTotals) {
  Histogram h({0.1, 1});
  h.Observe(0.05);
  h.Observe(0.1);  // on a bound: that bucket (le is inclusive)
  h.Observe(0.5);
  h.Observe(7);
  Histogram::Snapshot s = h.Read();
  EXPECT_EQ(s.counts, (std::vector<uint64_t>{2, 1, 1}));
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.sum, 7.65);
}

TEST(PrometheusTextTest, Histogram_WritesCumulativeBucketsSumAndCount) {
  Histogram h({0.5, 1});
  h.Observe(0.25);
  h.Observe(0.75);
  h.Observe(3);
  PrometheusText text;
  text.Histogram("x_seconds", "How long.", h.Read());
  EXPECT_EQ(text.text(),
            "# HELP x_seconds How long.\n"
            "# TYPE x_seconds histogram\n"
            "x_seconds_bucket{le=\"0.5\"} 1\n"
            "x_seconds_bucket{le=\"1\"} 2\n"
            "x_seconds_bucket{le=\"+Inf\"} 3\n"
            "x_seconds_sum 4\n"
            "x_seconds_count 3\n");
}

TEST(PrometheusTextTest, Sample_EscapesLabelValuesAndHelp) {
  PrometheusText text;
  text.Family("workers", "gauge", "Workers\\by state\nnow.");
  text.Sample("workers", {{"key", "a\"b\\c\nd"}, {"state", "idle"}}, 2);
  EXPECT_EQ(text.text(),
            "# HELP workers Workers\\\\by state\\nnow.\n"
            "# TYPE workers gauge\n"
            "workers{key=\"a\\\"b\\\\c\\nd\",state=\"idle\"} 2\n");
}

TEST(PrometheusTextTest, Counter_OneTotalPerLabelValue) {
  LabeledCounter c;
  c.Add("ok", 3);
  c.Add("wrong_answer");
  c.Add("ok");
  PrometheusText text;
  text.Counter("results", "Results.", "error_class", c);
  EXPECT_TRUE(absl::StrContains(text.text(), "results_total{error_class=\"ok\"} 4\n"));
  EXPECT_TRUE(absl::StrContains(text.text(), "results_total{error_class=\"wrong_answer\"} 1\n"));
  EXPECT_TRUE(absl::StrContains(text.text(), "# TYPE results_total counter\n"));
}

}  // namespace
}  // namespace tunefarm
