// Tuning curves from a job's history: what `tunefarm history` prints and report/ plots.
#ifndef TUNEFARM_DB_TUNING_CURVE_H_
#define TUNEFARM_DB_TUNING_CURVE_H_

#include <cstdint>
#include <vector>

#include "db/record.h"

namespace tunefarm::db {

// One trial of a tuning curve (trials numbered from 1 in record order).
struct CurvePoint {
  int64_t trial = 0;
  // GFLOP/s of this trial; 0 when it failed or the FLOP count is unknown.
  double gflops = 0;
  // Best GFLOP/s of trials 1..trial.
  double best_gflops = 0;
  // Index into the history of the record holding best_gflops (-1 before any valid trial).
  int64_t best_index = -1;
};

// Best-so-far GFLOP/s per trial of `history` (as returned by TuningLog::JobHistory).
std::vector<CurvePoint> BestSoFarCurve(const std::vector<Record>& history);

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_TUNING_CURVE_H_
