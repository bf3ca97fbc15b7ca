// The SVG pictures: a tuning curve with its title escaped, and an empty chart.
#include "absl/strings/match.h"
#include "db/test_records.h"
#include "gtest/gtest.h"
#include "report/svg_plot.h"
#include "report/tuning_curve_svg.h"

namespace tunefarm::report {
namespace {

using db::testing::DenseWorkload;
using db::testing::MakeErrorRecord;
using db::testing::MakeRecord;

TEST(TuningCurveSvg, MixedTrials_LineDotsAndEscapedTitle) {
  db::Workload w = DenseWorkload(100, 100, 100);
  std::vector<db::Record> history = {MakeErrorRecord(w, 0, db::ErrorClass::kBuildError),
                                     MakeRecord(w, 1, 2e-3), MakeRecord(w, 2, 1e-3)};
  std::string svg = TuningCurveSvg(db::BestSoFarCurve(history), "job <1> & dense");
  EXPECT_TRUE(absl::StartsWith(svg, "<svg "));
  EXPECT_TRUE(absl::StrContains(svg, "<polyline"));
  EXPECT_TRUE(absl::StrContains(svg, "<circle"));
  EXPECT_TRUE(absl::StrContains(svg, "job &lt;1&gt; &amp; dense"));
  EXPECT_TRUE(absl::StrContains(svg, "</svg>"));
}

TEST(RenderSvgPlot, NoSeries_EmptyChart) {
  std::string svg = RenderSvgPlot({});
  EXPECT_TRUE(absl::StartsWith(svg, "<svg "));
  EXPECT_TRUE(absl::StrContains(svg, "</svg>"));
}

}  // namespace
}  // namespace tunefarm::report
