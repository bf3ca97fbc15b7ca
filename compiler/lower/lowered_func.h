// The result of lowering and the options that steer it.
#ifndef TUNEFARM_COMPILER_LOWER_LOWERED_FUNC_H_
#define TUNEFARM_COMPILER_LOWER_LOWERED_FUNC_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/ir.h"

namespace tunefarm::lower {

// Options of the lowering pipeline. Every field has a documented default.
struct LowerOptions {
  // Values of symbolic shape variables; every variable in a shape must be bound.
  absl::flat_hash_map<const ir::VarNode*, int64_t> bindings;
  // Split loops with `likely` guards into a guard-free main part and a tail (default on).
  bool partition_loops = true;
  // Unroll every innermost loop nest whose total trip count is at most this (0 = only loops
  // the schedule marks). Loop pragmas override it per loop.
  int64_t auto_unroll_max_step = 0;
  // Print the IR after each pass to `dump_to` when set.
  std::ostream* dump_to = nullptr;
};

// A kernel argument: a tensor with constant shape.
struct FuncArg {
  ir::Buffer buffer;
  std::vector<int64_t> shape;
};

// A lowered kernel: flat loads and stores over its arguments and local allocations.
struct LoweredFunc {
  std::string name;
  // Inputs first, then outputs, in the order given to Lower.
  std::vector<FuncArg> args;
  ir::Stmt body;
};

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_LOWERED_FUNC_H_
