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
#include "tuner/search/model_based_search.h"
#include "tuner/search/search_strategy.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// The strategy names MakeStrategy accepts, the default ("xgb") first.
std::vector<std::string> StrategyNames();

// The strategy `name` for `task`. `seed` drives its random choices (grid has none). It points
// at task.space, which must outlive it (the model-based ones keep it alive themselves through
// their copy of the task).
// `log` (may be null) supplies transfer-learning history to the model-based strategies:
// up to 600 records of other shapes of the same template on the same device key and target,
// each lowered once for its features (a read error of the log just means no history).
// InvalidArgument: unknown name, or a strategy's own option check.
absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeStrategy(const std::string& name,
                                                             const TuneTask& task, uint64_t seed,
                                                             db::TuningLog* log);

// The transfer-learning history MakeStrategy gives the model-based strategies: the records of
// `log` (may be null: none) of other shapes of task's template on its device key and target, up
// to 600, each lowered for its features on `threads` threads (the rows in the log's order
// whatever the threads), one group per shape. Records whose config is no point of their
// shape's space, or whose features fail or differ in length from the task's, are left out.
TransferHistory LoadTransferHistory(const TuneTask& task, db::TuningLog* log, int threads);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_STRATEGY_FACTORY_H_
