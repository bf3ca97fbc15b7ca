#include "report/tuning_curve_svg.h"

#include "report/svg_plot.h"

namespace tunefarm::report {

std::string TuningCurveSvg(const std::vector<db::CurvePoint>& curve, const std::string& title) {
  PlotSpec spec;
  spec.title = title;
  spec.x_label = "trial";
  spec.y_label = "GFLOP/s";
  PlotSeries trials{"each trial", {}, "#9ecae1", /*line=*/false};
  PlotSeries best{"best so far", {}, "#d62728", /*line=*/true};
  for (const db::CurvePoint& p : curve) {
    if (p.gflops > 0) trials.points.push_back({static_cast<double>(p.trial), p.gflops});
    best.points.push_back({static_cast<double>(p.trial), p.best_gflops});
  }
  spec.series = {trials, best};
  return RenderSvgPlot(spec);
}

}  // namespace tunefarm::report
