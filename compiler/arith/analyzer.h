// Integer arithmetic analysis for index expressions: constant bounds under known variable
// ranges, proofs of simple conditions, and canonical simplification of affine sums.
//
// The simplifier rewrites integer expressions into a canonical sum of terms (coefficient ×
// atom, atoms ordered by first appearance) plus a constant, folds floordiv/floormod when the
// remainder's range is known to fit the divisor (which undoes the index arithmetic of
// split/fuse), and folds comparisons it can prove. Float arithmetic is only constant-folded,
// never reassociated, so results stay bit-stable.
#ifndef TUNEFARM_COMPILER_ARITH_ANALYZER_H_
#define TUNEFARM_COMPILER_ARITH_ANALYZER_H_

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/ir.h"

namespace tunefarm::arith {

// An inclusive integer interval.
struct IntBound {
  int64_t min;
  int64_t max;
};

class Analyzer {
 public:
  // Declares v ∈ [min, min + extent). Rebinding replaces the previous range.
  void Bind(const ir::VarNode* v, int64_t min, int64_t extent);
  // Declares v ∈ [min, min + extent) when both are constants (else v stays unbounded).
  void Bind(const ir::Var& v, const ir::Expr& min, const ir::Expr& extent);
  void Unbind(const ir::VarNode* v);

  // Constant bounds of an integer expression, or nullopt when some part is unbounded.
  std::optional<IntBound> ConstBound(const ir::Expr& e) const;
  // True when `cond` holds for every value of the bound variables.
  bool CanProve(const ir::Expr& cond) const;
  // Canonical simplification (see file comment).
  ir::Expr Simplify(const ir::Expr& e) const;

 private:
  absl::flat_hash_map<const ir::VarNode*, IntBound> bounds_;
};

}  // namespace tunefarm::arith

#endif  // TUNEFARM_COMPILER_ARITH_ANALYZER_H_
