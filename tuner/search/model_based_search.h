// Model-based search in the manner of AutoTVM's XGBTuner.
//
// After each Update (once enough points are measured) the cost model is refit on every
// measured config of this workload plus optional transfer-learning history from other
// workloads. The next configs are planned by simulated annealing over the space: `num_chains`
// chains walk to neighbors (one knob changed to another choice; the first chains of each plan
// start at the best measured configs, see measured_seed_chains), accepted by the Metropolis rule
// on the model's score with a temperature falling linearly from temp_start to temp_end, and the
// best-scored configs never proposed or measured are kept (the top `plan_size`, or
// `plan_size * diversity_filter_ratio` followed by the diversity filter). Each proposed slot is a
// uniform random unvisited config with probability `epsilon` (and always before the first fit),
// and an unvisited neighbor of the fastest measured configs with probability `local_share`.
// Chains persist across plans, as in AutoTVM. In a space with constraints
// (ConfigSpace::AddConstraint) every slot proposes admitted configs: the random ones are drawn
// among them first (admitted_order.h), the neighbors and the annealing's steps skip the rest
// (scored as invalid, without their features). With crossover_top, the fastest measured configs'
// stages are also recombined (see ModelSearchOptions::crossover_top).
//
// Features come from the caller (lowering + feature extraction for real templates, knob
// features for synthetic spaces) and are cached. A config whose features fail, or whose feature
// vector has a different length than the first one seen, scores as the slowest possible and is
// never planned; if it was measured, it is left out of the training rows.
//
// Cost control: the feature function may cost 100 us to 22 ms per call (a dense layer's
// lowering; a Winograd program's), so each plan stops after `max_feature_evals` cache misses (or
// `max_steps` steps, or `early_stop` steps without a change in the kept set), and the misses of
// one step are computed on `feature_threads` threads at once. One model prediction is made per
// step for all chains at once.
#ifndef TUNEFARM_TUNER_SEARCH_MODEL_BASED_SEARCH_H_
#define TUNEFARM_TUNER_SEARCH_MODEL_BASED_SEARCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/cost_model/cost_model.h"
#include "tuner/search/search_strategy.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

// Features of the config at `index`; an error means the config is invalid (it is treated as
// very slow, not as a search failure).
using FeatureFn = std::function<absl::StatusOr<std::vector<float>>(int64_t index)>;

// Measured records of other workloads of the same template (other shapes), for transfer
// learning. Rows must have the same feature layout as this workload's FeatureFn. `group` holds
// one workload id per row (any ints; this workload gets an id of its own).
struct TransferHistory {
  std::vector<std::vector<float>> x;
  std::vector<double> cost_s;  // +inf = failed.
  std::vector<int> group;
};

struct ModelSearchOptions {
  // Configs planned per simulated-annealing run (AutoTVM: 64).
  int plan_size = 64;
  // Parallel annealing chains (AutoTVM: 128).
  int num_chains = 128;
  // Chains restarted at the best measured configs at the start of each plan (at most this
  // many, and at most half the chains), the rest kept where the last plan left them, as Ansor
  // seeds its evolutionary search with the best measured states: in a space of many knobs a
  // chain from a random start spends the plan's feature budget far from the good region.
  int measured_seed_chains = 32;
  // Steps per plan (AutoTVM: 500) and steps without a change in the kept set before stopping
  // early (AutoTVM: 50).
  int max_steps = 500;
  int early_stop = 50;
  // Annealing temperature at the first and the last step, in units of model score.
  double temp_start = 1.0;
  double temp_end = 0.0;
  // Feature-function calls (cache misses) allowed per plan.
  int max_feature_evals = 4000;
  // Probability that a proposed slot is uniform random instead of planned (AutoTVM: 0.05).
  double epsilon = 0.05;
  // Probability that a proposed slot, once the model is fit, is a config one knob away from the
  // fastest measured one (an unvisited neighbor drawn at random; the next fastest's when all of
  // its neighbors are visited, among the `local_top` fastest). The model ranks a region by what
  // it has seen, so a tile that fits the shape exactly next to ones that leave a tail can score
  // low and never be planned; this measures the incumbent's whole neighborhood within a few
  // dozen slots, whatever the model says. 0: off.
  double local_share = 0.0;
  int local_top = 8;
  // Stage crossover, for spaces whose knobs are named "<stage>.<what>" (generated spaces,
  // space/knob_stages.h) over two stages or more: a program's time is about the sum of its
  // stages' times, so the fastest configs' stages recombine, as Ansor's evolutionary search
  // crosses over per node. A child is one of the `crossover_top` fastest measured configs with
  // the knobs of one stage taken from another of them. Each plan scores every unvisited child
  // with the model and offers it beside the annealing's picks; the local_share slots draw from
  // the fastest config's children as well as from its one-knob neighbors. 0: off (the default,
  // and what strategy_factory.cc leaves; tuner/README.md says why).
  int crossover_top = 0;
  // > 1 enables the diversity filter: annealing keeps plan_size * ratio candidates and
  // DiversityPick chooses plan_size of them with `diversity_knob_weight`. <= 1: off.
  double diversity_filter_ratio = 0.0;
  double diversity_knob_weight = 1.0;
  // Measured configs of this workload needed before the first fit. With transfer history the
  // model is fit on the history alone before the first batch.
  int min_fit_points = 64;
  // After the first fit, refit only once the training set has grown by at least
  // max(refit_min_new_points, refit_growth × its size) since the last fit (AutoTVM refits once
  // per plan). 0 and 0: refit on every update.
  int refit_min_new_points = 0;
  double refit_growth = 0.0;
  // Cached feature vectors; the cache is cleared when it grows past this.
  int feature_cache_capacity = 1 << 18;
  // Threads that compute the features of one annealing step's configs (or one measured batch's)
  // at once; the features are the search's cost (a Winograd program's lowering takes 5-22 ms a
  // config, so one plan's 4,000 took about a minute on one thread while the farm waited). The
  // plans do not depend on it: the features of a step are gathered, then used in the step's
  // order. The feature function must be safe to call from several threads.
  int feature_threads = 1;
  TransferHistory history;
  uint64_t seed = 0;
};

// NextBatch and Update also return the cost model's errors (Internal from XGBoost when a fit or
// prediction fails); the strategy stays usable and the next call retries.
//
// `space` must outlive the strategy; `model` is owned and refit from scratch on each fit.
// InvalidArgument: null space/model/features, non-positive plan_size/num_chains/max_steps/
// early_stop/max_feature_evals/feature_cache_capacity/feature_threads, epsilon outside [0, 1],
// or history rows whose sizes disagree.
absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeModelBasedSearch(
    const ConfigSpace* space, std::unique_ptr<CostModel> model, FeatureFn features,
    ModelSearchOptions options);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_MODEL_BASED_SEARCH_H_
