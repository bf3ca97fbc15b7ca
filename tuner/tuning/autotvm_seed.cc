#include "tuner/tuning/autotvm_seed.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "db/config_rank.h"
#include "db/json.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::tuner {
namespace {

// The target a converted workload's space is defined for: only the kind matters here.
std::string SpaceTarget(const std::string& target) {
  return absl::StartsWith(target, "cuda") ? "cuda" : "llvm";
}

// The resolved config of `knobs_json` in `task`'s space.
absl::StatusOr<db::ResolvedConfig> Resolve(const TuneTask& task, const std::string& knobs_json) {
  absl::StatusOr<int64_t> index = ConfigIndexOf(*task.space, knobs_json);
  if (!index.ok()) return index.status();
  absl::StatusOr<Config> config = task.space->Get(*index);
  if (!config.ok()) return config.status();
  return db::ResolvedConfig{*index, config->ToJson()};
}

}  // namespace

absl::StatusOr<int64_t> ConfigIndexOf(const ConfigSpace& space, const std::string& knobs_json) {
  absl::StatusOr<google::protobuf::Value> knobs = db::ParseJson(knobs_json);
  if (!knobs.ok() || !knobs->has_struct_value()) {
    return absl::InvalidArgumentError(absl::StrCat("config ", knobs_json, " is not an object"));
  }
  const auto& fields = knobs->struct_value().fields();
  std::vector<int64_t> choices;
  for (int i = 0; i < space.num_knobs(); ++i) {
    const Knob& knob = space.knob(i);
    auto it = fields.find(knob.name());
    if (it == fields.end()) {
      return absl::NotFoundError(absl::StrCat("the config has no value for knob ", knob.name()));
    }
    const std::string want = db::CanonicalJson(it->second);
    int64_t found = -1;
    for (int64_t j = 0; j < knob.size() && found < 0; ++j) {
      absl::StatusOr<std::string> value = db::CanonicalizeJson(knob.ValueJson(j));
      if (value.ok() && *value == want) found = j;
    }
    if (found < 0) {
      return absl::NotFoundError(
          absl::StrCat(knob.name(), " ", want, " is not a choice of the template's space"));
    }
    choices.push_back(found);
  }
  return space.Compose(choices);
}

db::AutotvmConfigResolver MakeAutotvmConfigResolver() {
  // Tasks (and their spaces) by workload and target kind; a failed MakeTaskFor is cached too.
  auto tasks = std::make_shared<std::map<std::string, absl::StatusOr<TuneTask>>>();
  return [tasks](const db::Workload& w, const std::string& target,
                 const std::string& knobs_json) -> absl::StatusOr<db::ResolvedConfig> {
    const std::string space_target = SpaceTarget(target);
    const std::string key = absl::StrCat(w.CanonicalString(), "|", space_target);
    auto it = tasks->find(key);
    if (it == tasks->end()) {
      absl::StatusOr<TuneTask> task = MakeTaskFor(w, space_target, "autotvm");
      if (task.ok()) {
        const db::Workload own = task->DbWorkload();
        if (own.args != w.args || own.flop != w.flop) {
          task = absl::InternalError(absl::StrCat(
              "the template's workload ", own.args, " (", own.flop, " FLOP) differs from the ",
              "converted one ", w.args, " (", w.flop, " FLOP)"));
        }
      }
      it = tasks->emplace(key, std::move(task)).first;
    }
    if (!it->second.ok()) return it->second.status();
    return Resolve(*it->second, knobs_json);
  };
}

absl::StatusOr<AutotvmSeeds> SeedsFromAutotvmLog(std::istream& in, const TuneTask& task, int max) {
  if (max < 0) return absl::InvalidArgumentError("max seeds must be >= 0");
  const db::Workload own = task.DbWorkload();
  const bool cuda = task.target.kind == codegen::Target::Kind::kCUDA;
  db::AutotvmImportOptions options;
  // Only this task's workload resolves; everything else stays untranslated and is skipped.
  options.resolve = [&](const db::Workload& w, const std::string& target,
                        const std::string& knobs_json) -> absl::StatusOr<db::ResolvedConfig> {
    if (w.template_name != own.template_name || w.args != own.args) {
      return absl::NotFoundError("another workload");
    }
    if (absl::StartsWith(target, "cuda") != cuda) return absl::NotFoundError("another target");
    return Resolve(task, knobs_json);
  };
  AutotvmSeeds seeds;
  std::vector<std::pair<double, int64_t>> ranked;
  std::string line;
  while (std::getline(in, line)) {
    if (db::IsAutotvmCommentOrBlank(line)) continue;
    absl::StatusOr<db::Record> r = db::ParseAutotvmLine(line, options);
    if (!r.ok() || !r->valid()) continue;
    if (r->workload.template_name != own.template_name || r->workload.args != own.args ||
        absl::StartsWith(r->target, "cuda") != cuda) {
      continue;
    }
    ++seeds.matching;
    if (r->config_index < 0 || r->config_index >= task.space->size()) {
      ++seeds.untranslated;
      continue;
    }
    ranked.emplace_back(db::RecordCost(*r), r->config_index);
  }
  std::sort(ranked.begin(), ranked.end());
  std::set<int64_t> taken;
  for (const auto& [cost, index] : ranked) {
    if (static_cast<int>(seeds.indices.size()) >= max) break;
    if (taken.insert(index).second) seeds.indices.push_back(index);
  }
  return seeds;
}

}  // namespace tunefarm::tuner
