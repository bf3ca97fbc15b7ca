// An XGBoost cost model in AutoTVM's manner: gradient-boosted trees over config features,
// trained with a pairwise rank loss (or a regression) on throughput normalized per workload.
//
//   XGBoostOptions opts;                       // rank:pairwise, AutoTVM-like defaults
//   auto model = *MakeXGBoostCostModel(opts);
//   TF_RETURN_IF_ERROR(model->Fit(x, cost_s, group));
//   std::vector<float> score = *model->Predict(candidates);   // higher = faster
//
// Only XGBoost's C API is used. A model is not safe for concurrent use from several threads.
#ifndef TUNEFARM_TUNER_COST_MODEL_XGBOOST_COST_MODEL_H_
#define TUNEFARM_TUNER_COST_MODEL_XGBOOST_COST_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/cost_model/cost_model.h"

namespace tunefarm::tuner {

// Booster parameters. Defaults follow AutoTVM's XGBoostCostModel (max_depth 3, eta 0.3,
// gamma 1e-4, min_child_weight 1, subsample 1, lambda 1, alpha 0) with a fixed number of
// rounds in place of AutoTVM's early stopping.
struct XGBoostOptions {
  // "rank:pairwise" (learns the order within each group) or "reg:squarederror" (regresses the
  // normalized throughput min_cost / cost of the group).
  std::string objective = "rank:pairwise";
  int num_boost_round = 100;
  int max_depth = 3;
  double eta = 0.3;
  double gamma = 1e-4;
  double min_child_weight = 1.0;
  double subsample = 1.0;
  double lambda = 1.0;
  double alpha = 0.0;
  // Threads XGBoost may use; tuner machines share their cores with builds.
  int nthread = 1;
  // XGBoost's tree_method: "exact", "approx", "hist" or "auto".
  std::string tree_method = "exact";
  // Seed of XGBoost's own sampling (subsample < 1); no other randomness is involved.
  uint64_t seed = 0;
};

// InvalidArgument: unknown objective or an out-of-range parameter (rounds, depth, eta,
// subsample, nthread).
absl::StatusOr<std::unique_ptr<CostModel>> MakeXGBoostCostModel(const XGBoostOptions& options);

// The training label of each row: min_cost / cost within the row's group (1 for the fastest
// config of a group, toward 0 for slow ones, exactly 0 for failed measurements). Exposed for
// tests and for callers that log what the model was trained on.
std::vector<float> NormalizedThroughput(const std::vector<double>& cost_s,
                                        const std::vector<int>& group);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_COST_MODEL_XGBOOST_COST_MODEL_H_
