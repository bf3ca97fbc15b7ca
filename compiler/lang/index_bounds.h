// Constant bounds of the index expressions of a tensor-expression program, so the elaborator
// can prove every element read is inside its tensor once the shapes are bound.
//
// An index is evaluated over the syntax tree with interval arithmetic: index variables range
// over their extents, shape variables are constants. Inside `select(cond, a, b)`, the
// comparisons of `cond` narrow what they compare in `a` (and, for a single comparison, its
// negation narrows `b`): in `select(h >= 1 && h <= H, X[h - 1], 0.0)`, h - 1 is within
// [0, H - 1]. A comparison narrows a variable or any expression whose text matches the index
// or a part of it, so `select(2 * h + r - 1 >= 0, X[2 * h + r - 1], 0.0)` is proven too.
#ifndef TUNEFARM_COMPILER_LANG_INDEX_BOUNDS_H_
#define TUNEFARM_COMPILER_LANG_INDEX_BOUNDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/lang/ast.h"

namespace tunefarm::lang {

// An inclusive integer interval.
struct Interval {
  int64_t min = 0;
  int64_t max = 0;
};

class IndexBounds {
 public:
  // `shapes` (bound shape variables) must outlive this object.
  explicit IndexBounds(const absl::flat_hash_map<std::string, int64_t>* shapes) : shapes_(shapes) {}

  // Declares the index variable `name` to range over [0, extent).
  void BindVar(const std::string& name, int64_t extent);

  // Records what `cond` implies when it holds (or, with holds == false, when it does not: only
  // a single comparison says anything then). Returns how many facts were recorded; pass that
  // to Forget when leaving the branch.
  int Assume(const Node& cond, bool holds);
  void Forget(int facts);

  // The bounds of an integer expression, or nullopt when it is not built only from integer
  // literals, bound variables, + - * / % (floor semantics), unary minus, max, min, select and
  // integer casts, or when the arithmetic would overflow int64.
  std::optional<Interval> Bound(const Node& index) const;

 private:
  std::optional<Interval> BoundUnnarrowed(const Node& n) const;

  const absl::flat_hash_map<std::string, int64_t>* shapes_;
  absl::flat_hash_map<std::string, int64_t> vars_;  // Index variable -> extent.
  // Narrowings by the text of what they narrow, innermost last.
  std::vector<std::pair<std::string, Interval>> facts_;
};

}  // namespace tunefarm::lang

#endif  // TUNEFARM_COMPILER_LANG_INDEX_BOUNDS_H_
