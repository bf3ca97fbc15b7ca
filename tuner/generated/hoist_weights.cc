#include "tuner/generated/hoist_weights.h"

#include <algorithm>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "tuner/generated/rebuild_program.h"
#include "tuner/generated/sketch.h"

namespace tunefarm::tuner {

using te::Tensor;

absl::StatusOr<HoistedProgram> HoistWeightStages(const std::vector<Tensor>& args,
                                                 const std::vector<Tensor>& weights) {
  HoistedProgram out;
  out.program = args;
  if (weights.empty()) return out;
  const std::vector<Tensor> stages = ComputeStages(args.back());
  // The weights each stage is computed from, for the stages computed from weights and constant
  // tables alone ("derived"); a constant table derives from none.
  absl::flat_hash_map<const te::OperationNode*, absl::flat_hash_set<const te::OperationNode*>>
      sources;
  absl::flat_hash_map<const te::OperationNode*, std::vector<Tensor>> reads;
  for (const Tensor& t : stages) {
    reads[t.op()] = TensorsRead(t.compute()->body);
    absl::flat_hash_set<const te::OperationNode*> from;
    bool derived = true;
    for (const Tensor& r : reads[t.op()]) {
      if (absl::c_linear_search(weights, r)) {
        from.insert(r.op());
      } else if (auto it = sources.find(r.op()); it != sources.end()) {
        from.insert(it->second.begin(), it->second.end());
      } else {
        derived = false;
      }
    }
    if (derived && t != args.back()) sources.emplace(t.op(), std::move(from));
  }
  auto is_derived = [&](const Tensor& t) { return sources.contains(t.op()); };
  // Stages of the kernel (not derived) and what they read.
  std::vector<Tensor> frontier;
  absl::flat_hash_set<const te::OperationNode*> read_by_kernel;
  for (const Tensor& t : stages) {
    if (is_derived(t)) continue;
    for (const Tensor& r : reads[t.op()]) {
      read_by_kernel.insert(r.op());
      if (is_derived(r) && sources[r.op()].size() == 1 && !absl::c_linear_search(frontier, r)) {
        frontier.push_back(r);
      }
    }
  }
  absl::flat_hash_map<const te::OperationNode*, int> uses_of_weight;
  for (const Tensor& s : frontier) ++uses_of_weight[*sources[s.op()].begin()];
  absl::flat_hash_map<const te::OperationNode*, Tensor> replaced;
  for (const Tensor& s : frontier) {
    const te::OperationNode* weight = *sources[s.op()].begin();
    if (read_by_kernel.contains(weight) || uses_of_weight[weight] > 1) continue;
    const auto at = std::find_if(args.begin(), args.end() - 1,
                                 [&](const Tensor& a) { return a.op() == weight; });
    if (at == args.end() - 1) continue;
    Tensor input = te::Placeholder(s.shape(), s.dtype(), s.name());
    replaced.emplace(s.op(), input);
    AheadPack pack;
    pack.arg_index = static_cast<int>(at - args.begin());
    pack.pack = {*at, s};
    out.packs.push_back(std::move(pack));
  }
  if (replaced.empty()) return out;
  absl::StatusOr<std::vector<Tensor>> program = RebuildProgram(args, replaced);
  if (!program.ok()) return program.status();
  out.program = *std::move(program);
  for (const AheadPack& p : out.packs) out.program[p.arg_index] = replaced.at(p.pack[1].op());
  for (AheadPack& p : out.packs) p.program = out.program;
  return out;
}

}  // namespace tunefarm::tuner
