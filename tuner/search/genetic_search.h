// Genetic search in the manner of AutoTVM's GATuner. The population is the `pop_size` fittest
// measured configs (fitness = 1 / cost, 0 for failures), so the best `elite_num` always survive
// into the next generation as parents. A new generation of `pop_size` children is bred when the
// previous one has been handed out: parents are drawn by linear rank of fitness (the elites
// always among them), crossed over per knob (each knob's choice from either parent), and each
// knob mutates to a random choice with `mutation_prob`. Children already proposed or measured
// are redrawn; what cannot be filled that way (and the whole first generation) is uniform random.
#ifndef TUNEFARM_TUNER_SEARCH_GENETIC_SEARCH_H_
#define TUNEFARM_TUNER_SEARCH_GENETIC_SEARCH_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "tuner/search/search_strategy.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

struct GeneticOptions {
  // Configs per generation (AutoTVM: 100).
  int pop_size = 100;
  // The fittest configs that always breed (AutoTVM: 3).
  int elite_num = 3;
  // Per-knob probability of a random new choice (AutoTVM: 0.1).
  double mutation_prob = 0.1;
  uint64_t seed = 0;
};

// `space` must outlive the strategy.
// InvalidArgument: null space, pop_size < 2, elite_num outside [0, pop_size], mutation_prob
// outside [0, 1].
absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeGeneticSearch(const ConfigSpace* space,
                                                                  const GeneticOptions& options);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_GENETIC_SEARCH_H_
