#include "db/tuning_curve.h"

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

}  // namespace tunefarm::db
