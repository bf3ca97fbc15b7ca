// A minimal SVG line/scatter chart writer for tuning curves (no plotting library needed).
#ifndef TUNEFARM_REPORT_SVG_PLOT_H_
#define TUNEFARM_REPORT_SVG_PLOT_H_

#include <string>
#include <vector>

namespace tunefarm::report {

struct PlotPoint {
  double x = 0;
  double y = 0;
};

// One data series.
struct PlotSeries {
  std::string name;
  std::vector<PlotPoint> points;
  // Any SVG color, e.g. "#1f77b4".
  std::string color = "#1f77b4";
  // true: a connected step line; false: unconnected dots.
  bool line = true;
};

struct PlotSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<PlotSeries> series;
  int width = 720;
  int height = 420;
};

// Renders `spec` as a standalone SVG document: axes from 0 (or the data minimum, if negative)
// to a rounded maximum with 5 labelled ticks, a legend, and the title. Empty series are fine
// (an empty chart). Text is XML-escaped.
std::string RenderSvgPlot(const PlotSpec& spec);

}  // namespace tunefarm::report

#endif  // TUNEFARM_REPORT_SVG_PLOT_H_
