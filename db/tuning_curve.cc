#include "db/tuning_curve.h"

#include "db/svg_plot.h"

namespace tunefarm::db {

std::vector<CurvePoint> BestSoFarCurve(const std::vector<Record>& history) {
  std::vector<CurvePoint> curve;
  curve.reserve(history.size());
  CurvePoint best;
  for (size_t i = 0; i < history.size(); ++i) {
    CurvePoint p;
    p.trial = static_cast<int64_t>(i) + 1;
    p.gflops = history[i].Gflops();
    if (p.gflops > best.best_gflops) {
      best.best_gflops = p.gflops;
      best.best_index = static_cast<int64_t>(i);
    }
    p.best_gflops = best.best_gflops;
    p.best_index = best.best_index;
    curve.push_back(p);
  }
  return curve;
}

std::string TuningCurveSvg(const std::vector<CurvePoint>& curve, const std::string& title) {
  PlotSpec spec;
  spec.title = title;
  spec.x_label = "trial";
  spec.y_label = "GFLOP/s";
  PlotSeries trials{"each trial", {}, "#9ecae1", /*line=*/false};
  PlotSeries best{"best so far", {}, "#d62728", /*line=*/true};
  for (const CurvePoint& p : curve) {
    if (p.gflops > 0) trials.points.push_back({static_cast<double>(p.trial), p.gflops});
    best.points.push_back({static_cast<double>(p.trial), p.best_gflops});
  }
  spec.series = {trials, best};
  return RenderSvgPlot(spec);
}

}  // namespace tunefarm::db
