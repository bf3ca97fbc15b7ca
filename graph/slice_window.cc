#include "graph/slice_window.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"

namespace tunefarm::graph {
namespace {

// The constant integer input `k` of the node; nullopt when absent ("" or past the end) and
// `missing` when present but not (yet) a constant.
std::optional<std::vector<int64_t>> IntInput(const Graph& g, const Node& n, size_t k,
                                             bool& missing) {
  if (k >= n.inputs.size() || n.inputs[k].empty()) return std::nullopt;
  const Tensor* t = g.Find(n.inputs[k]);
  if (t == nullptr || !t->constant || t->dtype != DType::kInt64) {
    missing = true;
    return std::nullopt;
  }
  return t->i64;
}

}  // namespace

absl::StatusOr<std::optional<SliceWindow>> SliceWindowOf(const Graph& g, const Node& n,
                                                         const std::vector<int64_t>& in_shape) {
  const std::string where = absl::StrCat("node '", n.name, "' (Slice)");
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.inputs.size() <= 1) {
    starts = n.Ints("starts"), ends = n.Ints("ends"), axes = n.Ints("axes");
  } else {
    bool missing = false;
    std::optional<std::vector<int64_t>> s = IntInput(g, n, 1, missing);
    std::optional<std::vector<int64_t>> e = IntInput(g, n, 2, missing);
    std::optional<std::vector<int64_t>> a = IntInput(g, n, 3, missing);
    std::optional<std::vector<int64_t>> st = IntInput(g, n, 4, missing);
    if (missing || !s.has_value() || !e.has_value()) return std::nullopt;
    starts = *s, ends = *e;
    if (a.has_value()) axes = *a;
    if (st.has_value()) steps = *st;
  }
  const int64_t rank = static_cast<int64_t>(in_shape.size());
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": starts, ends, axes and steps of different lengths"));
  }
  SliceWindow w;
  w.start.assign(rank, 0);
  w.step.assign(rank, 1);
  w.extent = in_shape;
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (axis < 0 || axis >= rank || seen[axis]) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": axis out of range or repeated"));
    }
    seen[axis] = true;
    const int64_t dim = in_shape[axis], step = steps[k];
    if (step == 0) return absl::InvalidArgumentError(absl::StrCat(where, ": a step of 0"));
    // Bounds may be ±INT64_MAX ("to the end"): clamp before any arithmetic.
    auto bound = [&](int64_t v, int64_t lo, int64_t hi) {
      v = std::clamp<int64_t>(v, -dim - 1, dim + 1);
      if (v < 0) v += dim;
      return std::clamp<int64_t>(v, lo, hi);
    };
    const int64_t b = step > 0 ? bound(starts[k], 0, dim) : bound(starts[k], 0, dim - 1);
    const int64_t e = step > 0 ? bound(ends[k], 0, dim) : bound(ends[k], -1, dim - 1);
    const int64_t count = step > 0 ? (e - b + step - 1) / step : (b - e + (-step) - 1) / (-step);
    w.start[axis] = b;
    w.step[axis] = step;
    w.extent[axis] = std::max<int64_t>(0, count);
  }
  return w;
}

}  // namespace tunefarm::graph
