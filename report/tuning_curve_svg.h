// The picture of a job's tuning curve (`tunefarm history --svg`): presentation of the data
// db/tuning_curve computes.
#ifndef TUNEFARM_REPORT_TUNING_CURVE_SVG_H_
#define TUNEFARM_REPORT_TUNING_CURVE_SVG_H_

#include <string>
#include <vector>

#include "db/tuning_curve.h"

namespace tunefarm::report {

// An SVG document of the curve: the best-so-far line over the per-trial dots (failed trials
// are not drawn). `title` is XML-escaped.
std::string TuningCurveSvg(const std::vector<db::CurvePoint>& curve, const std::string& title);

}  // namespace tunefarm::report

#endif  // TUNEFARM_REPORT_TUNING_CURVE_SVG_H_
