#include "report/svg_plot.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tunefarm::report {
namespace {

constexpr int kMarginLeft = 70;
constexpr int kMarginRight = 20;
constexpr int kMarginTop = 40;
constexpr int kMarginBottom = 50;
constexpr int kTicks = 5;

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A "nice" upper bound (1, 2 or 5 times a power of ten) at or above `x`.
double NiceCeil(double x) {
  if (x <= 0) return 1;
  double p = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= x) return m * p;
  }
  return 10 * p;
}

std::string Tick(double v) { return absl::StrFormat("%.4g", v); }

}  // namespace

std::string RenderSvgPlot(const PlotSpec& spec) {
  double x_max = 0, y_max = 0, x_min = 0, y_min = 0;
  for (const PlotSeries& s : spec.series) {
    for (const PlotPoint& p : s.points) {
      x_max = std::max(x_max, p.x);
      y_max = std::max(y_max, p.y);
      x_min = std::min(x_min, p.x);
      y_min = std::min(y_min, p.y);
    }
  }
  x_max = NiceCeil(x_max);
  y_max = NiceCeil(y_max);
  const double plot_w = spec.width - kMarginLeft - kMarginRight;
  const double plot_h = spec.height - kMarginTop - kMarginBottom;
  auto sx = [&](double x) { return kMarginLeft + (x - x_min) / (x_max - x_min) * plot_w; };
  auto sy = [&](double y) { return kMarginTop + plot_h - (y - y_min) / (y_max - y_min) * plot_h; };

  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      spec.width, spec.height, spec.width, spec.height);
  absl::StrAppendFormat(
      &svg, "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">%s</text>\n",
      spec.width / 2, Escape(spec.title));
  // Grid, ticks and labels.
  for (int i = 0; i <= kTicks; ++i) {
    double fy = y_min + (y_max - y_min) * i / kTicks;
    double fx = x_min + (x_max - x_min) * i / kTicks;
    absl::StrAppendFormat(&svg,
                          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                          "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                          kMarginLeft, sy(fy), kMarginLeft + plot_w, sy(fy), kMarginLeft - 6,
                          sy(fy) + 4, Tick(fy));
    absl::StrAppendFormat(&svg,
                          "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                          sx(fx), kMarginTop, sx(fx), kMarginTop + plot_h, sx(fx),
                          kMarginTop + plot_h + 16, Tick(fx));
  }
  absl::StrAppendFormat(&svg,
                        "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                        "stroke=\"black\"/>\n",
                        kMarginLeft, kMarginTop, plot_w, plot_h);
  absl::StrAppendFormat(&svg, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                        kMarginLeft + plot_w / 2, spec.height - 12, Escape(spec.x_label));
  absl::StrAppendFormat(&svg,
                        "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" "
                        "transform=\"rotate(-90 16 %.1f)\">%s</text>\n",
                        kMarginTop + plot_h / 2, kMarginTop + plot_h / 2, Escape(spec.y_label));
  // Series and legend.
  int legend_y = kMarginTop + 16;
  for (const PlotSeries& s : spec.series) {
    if (s.line && !s.points.empty()) {
      std::string pts;
      for (size_t i = 0; i < s.points.size(); ++i) {
        if (i > 0) {
          // Step: hold the previous value until the next x.
          absl::StrAppendFormat(&pts, "%.1f,%.1f ", sx(s.points[i].x), sy(s.points[i - 1].y));
        }
        absl::StrAppendFormat(&pts, "%.1f,%.1f ", sx(s.points[i].x), sy(s.points[i].y));
      }
      absl::StrAppendFormat(&svg,
                            "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                            "points=\"%s\"/>\n",
                            Escape(s.color), pts);
    } else {
      for (const PlotPoint& p : s.points) {
        absl::StrAppendFormat(&svg,
                              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\" "
                              "fill-opacity=\"0.5\"/>\n",
                              sx(p.x), sy(p.y), Escape(s.color));
      }
    }
    absl::StrAppendFormat(&svg,
                          "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                          "<text x=\"%d\" y=\"%d\">%s</text>\n",
                          kMarginLeft + 10, legend_y - 10, Escape(s.color), kMarginLeft + 28,
                          legend_y, Escape(s.name));
    legend_y += 18;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace tunefarm::report
