// Statistics of repeat costs: median, spread and a distribution-free confidence interval of the
// median, used by the adaptive timing mode and reported with every measurement.
#ifndef TUNEFARM_RPC_SERVER_COST_STATS_H_
#define TUNEFARM_RPC_SERVER_COST_STATS_H_

#include <vector>

#include "proto/measure.pb.h"

namespace tunefarm {

// Fills every field of CostDistribution except `converged` and `number`. The 95% CI of the
// median uses order statistics (ranks n/2 -+ 0.98*sqrt(n)), so it holds for any distribution.
// Empty input gives an all-zero distribution.
v1::CostDistribution Summarize(std::vector<double> costs);

// Robust coefficient of variation: 1.4826 * MAD / median (0 for fewer than 2 samples). Unlike
// stddev/mean it is not blown up by one preempted run, so a device is called noisy only when
// its typical spread is large.
double RobustCv(std::vector<double> samples);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_COST_STATS_H_
