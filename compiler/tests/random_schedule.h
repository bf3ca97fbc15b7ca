// Random valid schedules for property tests: a deterministic generator (one seed, one
// schedule) that applies splits, tiles, fuses, reorders, cache_write, compute_at,
// compute_inline and loop annotations, and records every primitive it applied as text.
#ifndef TUNEFARM_COMPILER_TESTS_RANDOM_SCHEDULE_H_
#define TUNEFARM_COMPILER_TESTS_RANDOM_SCHEDULE_H_

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/lower/lowered_func.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::testing {

// Options of the generator.
struct RandomScheduleOptions {
  // Probability of also trying a primitive that must be rejected (vectorize a reduce axis,
  // split by 0, fuse non-adjacent loops, ...). The generator checks that each is rejected
  // with InvalidArgument or FailedPrecondition and leaves the schedule unchanged.
  double invalid_probability = 0.1;
};

class RandomScheduler {
 public:
  explicit RandomScheduler(uint64_t seed, RandomScheduleOptions options = {});

  // Schedules every stage of `sch` at random. Primitives that the schedule rejects with
  // InvalidArgument or FailedPrecondition are logged and skipped (the schedule stays valid);
  // Internal when a primitive fails in another way or an invalid one is accepted.
  absl::Status Run(schedule::Schedule* sch);

  // Random lowering options (loop partitioning, auto-unroll), also logged.
  lower::LowerOptions RandomLowerOptions();

  // Every primitive applied, one a line, with its result.
  std::string Log() const;

 private:
  bool Coin(double p);
  int64_t Uniform(int64_t lo, int64_t hi);  // Inclusive.
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Uniform(0, static_cast<int64_t>(v.size()) - 1)];
  }
  // Logs `what` with the status; InvalidArgument/FailedPrecondition are "rejected".
  absl::Status Note(const std::string& what, const absl::Status& s);
  // Logs a primitive that must be rejected; Internal when it was accepted or crashed out with
  // another code.
  absl::Status ExpectRejected(const std::string& what, const absl::Status& s);

  absl::Status TransformLoops(schedule::Stage& stage);
  absl::Status Annotate(const schedule::Schedule& sch, schedule::Stage& stage, bool at_root);
  absl::Status TryInvalid(schedule::Schedule* sch, schedule::Stage& stage);

  // Upper bounds of loop extents (root extents, then propagated through splits and fuses), so
  // that only short loops are unrolled: unrolling a 400-iteration loop is valid but makes LLVM
  // spend minutes.
  int64_t ExtentBound(const te::IterVar& iv);
  void NoteSplit(const te::IterVar& parent, const te::IterVar& outer, const te::IterVar& inner,
                 int64_t factor, int64_t nparts);

  std::mt19937_64 rng_;
  std::map<const te::IterVarNode*, int64_t> extent_bound_;
  RandomScheduleOptions options_;
  std::vector<std::string> log_;
};

}  // namespace tunefarm::testing

#endif  // TUNEFARM_COMPILER_TESTS_RANDOM_SCHEDULE_H_
