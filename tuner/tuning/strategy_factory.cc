#include "tuner/tuning/strategy_factory.h"

#include <algorithm>
#include <map>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/parallel_for.h"
#include "db/config_rank.h"
#include "tuner/cost_model/xgboost_cost_model.h"
#include "tuner/features/itervar_features.h"
#include "tuner/search/genetic_search.h"
#include "tuner/search/grid_search.h"
#include "tuner/search/model_based_search.h"
#include "tuner/search/random_search.h"
#include "tuner/tuning/builder.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::tuner {
namespace {

// Most history records used for transfer learning (each is lowered once for its features).
constexpr int kMaxHistoryRecords = 600;

// The model's features of config `index` of `task`: loop-nest features of its lowered program
// followed by its knob features.
absl::StatusOr<std::vector<float>> ConfigFeaturesOf(const TuneTask& task, int64_t index) {
  auto f = LowerConfig(task, index);
  if (!f.ok()) return f.status();
  auto itervar = ExtractItervarFeatures(f->kernel);
  if (!itervar.ok()) return itervar.status();
  return ConfigFeatures(*itervar, task.space->KnobFeatures(index));
}

}  // namespace

TransferHistory LoadTransferHistory(const TuneTask& task, db::TuningLog* log, int threads) {
  TransferHistory h;
  if (log == nullptr) return h;
  db::TemplateHistoryQuery q;
  q.template_name = task.workload.template_name;
  q.device_key = task.device_key;
  q.target = task.target.str;
  q.include_invalid = true;
  q.limit = kMaxHistoryRecords;
  auto records = log->TemplateHistory(q);
  if (!records.ok()) return h;
  std::map<std::string, std::optional<TuneTask>> tasks;  // Nodes stay put: rows point in.
  std::map<std::string, int> groups;
  struct Row {
    const TuneTask* task;
    int64_t index;
    double cost_s;
    int group;
  };
  std::vector<Row> rows;
  const std::string own = task.workload.ArgsJson();
  for (const db::Record& r : *records) {
    if (r.workload.args == own) continue;  // This workload's own records come via resume.
    auto it = tasks.find(r.workload.args);
    if (it == tasks.end()) {
      // A shape this build cannot rebuild (malformed args, a template that changed) is skipped.
      std::optional<TuneTask> other;
      auto t = MakeTaskFor(r.workload, task.target.str, task.device_key,
                           [&](const std::string& hash) { return log->ProgramText(hash); });
      if (t.ok()) other = *t;
      it = tasks.emplace(r.workload.args, other).first;
      groups.emplace(r.workload.args, static_cast<int>(groups.size()) + 1);
    }
    // A negative index is no point of the space (an untranslated AutoTVM config).
    if (!it->second.has_value() || r.config_index < 0 ||
        r.config_index >= it->second->space->size()) {
      continue;
    }
    rows.push_back({&*it->second, r.config_index, db::RecordCost(r), groups.at(r.workload.args)});
  }
  if (rows.empty()) return h;
  // The knob part only lines up when the spaces have the same knob layout, so rows whose
  // feature length differs from this task's are skipped.
  absl::StatusOr<std::vector<float>> probe = ConfigFeaturesOf(task, 0);
  if (!probe.ok()) return h;
  const size_t feature_len = probe->size();
  // Each row is lowered for its features (5-22 ms a config for a large program), on every core.
  std::vector<absl::StatusOr<std::vector<float>>> x(rows.size(), absl::UnknownError(""));
  ParallelFor(rows.size(), threads,
              [&](size_t i) { x[i] = ConfigFeaturesOf(*rows[i].task, rows[i].index); });
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!x[i].ok() || x[i]->size() != feature_len) continue;
    h.x.push_back(*std::move(x[i]));
    h.cost_s.push_back(rows[i].cost_s);
    h.group.push_back(rows[i].group);
  }
  return h;
}

std::vector<std::string> StrategyNames() { return {"xgb", "xgb_reg", "ga", "random", "grid"}; }

absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeStrategy(const std::string& name,
                                                             const TuneTask& task, uint64_t seed,
                                                             db::TuningLog* log) {
  const ConfigSpace* space = task.space.get();
  if (name == "random") return MakeRandomSearch(space, seed);
  if (name == "grid") return MakeGridSearch(space);
  if (name == "ga") {
    GeneticOptions o;
    o.seed = seed;
    return MakeGeneticSearch(space, o);
  }
  if (name == "xgb" || name == "xgb_reg") {
    XGBoostOptions mo;
    mo.objective = name == "xgb" ? "rank:pairwise" : "reg:squarederror";
    mo.seed = seed;
    auto model = MakeXGBoostCostModel(mo);
    if (!model.ok()) return model.status();
    // The task (and its space) is copied into the feature function, so the strategy does not
    // depend on the caller's TuneTask staying alive.
    TuneTask copy = task;
    FeatureFn features = [copy](int64_t index) { return ConfigFeaturesOf(copy, index); };
    ModelSearchOptions so;
    so.seed = seed;
    so.diversity_filter_ratio = 2.0;
    // Guide the search from the second round on, and refit as the data grows by a quarter
    // (about 16 fits in 1,000 trials instead of 60): the model and its annealing plan are the
    // tuner's overhead.
    so.min_fit_points = 16;
    so.refit_min_new_points = 16;
    so.refit_growth = 0.25;
    // An eighth of the planned slots measure the fastest config's one-knob neighbors (see
    // ModelSearchOptions::local_share; tuner/README.md has what it found).
    so.local_share = 0.125;
    // The features of a plan's configs are computed on every core: the farm waits while the
    // tuner plans (ModelSearchOptions::feature_threads), and LowerConfig is safe to call from
    // several threads, as BuildAll does.
    so.feature_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // Stage crossover (ModelSearchOptions::crossover_top) stays off: with it, the Winograd
    // 3x3 256 @14 winner ran 20-25% below its tuned speed beside oneDNN (tuner/README.md).
    so.history = LoadTransferHistory(task, log, so.feature_threads);
    return MakeModelBasedSearch(space, *std::move(model), std::move(features), std::move(so));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown search strategy '", name, "' (expected ",
                                                 absl::StrJoin(StrategyNames(), ", "), ")"));
}

}  // namespace tunefarm::tuner
