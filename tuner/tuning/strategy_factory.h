// Names → search strategies, for jobs and the CLI: "xgb" (XGBoost rank-loss model-based
// simulated annealing, the default), "xgb_reg" (the same with a regression objective), "ga",
// "random", "grid".
#ifndef TUNEFARM_TUNER_TUNING_STRATEGY_FACTORY_H_
#define TUNEFARM_TUNER_TUNING_STRATEGY_FACTORY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "db/tuning_log.h"
#include "tuner/search/search_strategy.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// The strategy names MakeStrategy accepts.
std::vector<std::string> StrategyNames();

// `log` (may be null) supplies transfer-learning history to the model-based strategies:
// records of other shapes of the same template on the same device key.
// InvalidArgument: unknown name.
absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeStrategy(const std::string& name,
                                                             const TuneTask& task, uint64_t seed,
                                                             db::TuningLog* log);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_STRATEGY_FACTORY_H_
