#include "tuner/cost_model/xgboost_cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tunefarm::tuner {
namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();

// XGBoost reports errors through a thread-local message; every call goes through here.
absl::Status XgbStatus(int rc, const char* what) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("xgboost ", what, " failed: ", XGBGetLastError()));
}

struct DMatrixFree {
  void operator()(void* h) const {
    if (h != nullptr) XGDMatrixFree(h);
  }
};
struct BoosterFree {
  void operator()(void* h) const {
    if (h != nullptr) XGBoosterFree(h);
  }
};
using DMatrix = std::unique_ptr<void, DMatrixFree>;
using Booster = std::unique_ptr<void, BoosterFree>;

bool Failed(double cost) { return !(cost > 0.0) || !std::isfinite(cost); }

// Copies `rows` (in the order given by `order`) into one dense row-major buffer; non-finite
// values become XGBoost's missing marker.
absl::StatusOr<DMatrix> MakeDMatrix(const std::vector<std::vector<float>>& rows,
                                    const std::vector<size_t>* order, size_t ncol) {
  std::vector<float> flat(rows.size() * ncol);
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::vector<float>& row = rows[order != nullptr ? (*order)[r] : r];
    if (row.size() != ncol) {
      return absl::InvalidArgumentError(
          absl::StrCat("feature row ", r, " has ", row.size(), " values, expected ", ncol));
    }
    float* out = flat.data() + r * ncol;
    for (size_t c = 0; c < ncol; ++c) out[c] = std::isfinite(row[c]) ? row[c] : kMissing;
  }
  DMatrixHandle h = nullptr;
  absl::Status s = XgbStatus(XGDMatrixCreateFromMat(flat.data(), rows.size(), ncol, kMissing, &h),
                             "DMatrixCreate");
  if (!s.ok()) return s;
  return DMatrix(h);
}

class XGBoostCostModel : public CostModel {
 public:
  explicit XGBoostCostModel(XGBoostOptions options) : options_(std::move(options)) {}

  absl::Status Fit(const std::vector<std::vector<float>>& x, const std::vector<double>& cost_s,
                   const std::vector<int>& group) override {
    if (x.empty()) return absl::InvalidArgumentError("Fit needs at least one row");
    if (cost_s.size() != x.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Fit: ", x.size(), " feature rows but ", cost_s.size(), " costs"));
    }
    if (!group.empty() && group.size() != x.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Fit: ", x.size(), " feature rows but ", group.size(), " group ids"));
    }
    const size_t ncol = x[0].size();
    if (ncol == 0) return absl::InvalidArgumentError("Fit: feature rows are empty");

    // Ranking needs each group's rows to be contiguous: order rows by group (stable).
    std::vector<size_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    if (!group.empty()) {
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return group[a] < group[b]; });
    }
    std::vector<float> label_by_row = NormalizedThroughput(cost_s, group);
    std::vector<float> labels(x.size());
    std::vector<unsigned> group_sizes;
    for (size_t r = 0; r < order.size(); ++r) {
      labels[r] = label_by_row[order[r]];
      if (r == 0 || (!group.empty() && group[order[r]] != group[order[r - 1]])) {
        group_sizes.push_back(0);
      }
      ++group_sizes.back();
    }

    absl::StatusOr<DMatrix> dtrain = MakeDMatrix(x, &order, ncol);
    if (!dtrain.ok()) return dtrain.status();
    if (absl::Status s =
            XgbStatus(XGDMatrixSetFloatInfo(dtrain->get(), "label", labels.data(), labels.size()),
                      "SetFloatInfo(label)");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = XgbStatus(
            XGDMatrixSetUIntInfo(dtrain->get(), "group", group_sizes.data(), group_sizes.size()),
            "SetUIntInfo(group)");
        !s.ok()) {
      return s;
    }

    DMatrixHandle cache[1] = {dtrain->get()};
    BoosterHandle bh = nullptr;
    if (absl::Status s = XgbStatus(XGBoosterCreate(cache, 1, &bh), "BoosterCreate"); !s.ok()) {
      return s;
    }
    Booster booster(bh);
    const std::pair<const char*, std::string> params[] = {
        {"objective", options_.objective},
        {"max_depth", absl::StrCat(options_.max_depth)},
        {"eta", absl::StrCat(options_.eta)},
        {"gamma", absl::StrCat(options_.gamma)},
        {"min_child_weight", absl::StrCat(options_.min_child_weight)},
        {"subsample", absl::StrCat(options_.subsample)},
        {"lambda", absl::StrCat(options_.lambda)},
        {"alpha", absl::StrCat(options_.alpha)},
        {"nthread", absl::StrCat(options_.nthread)},
        {"seed", absl::StrCat(options_.seed & 0x7fffffffu)},
        {"tree_method", options_.tree_method},
        {"verbosity", "0"},
    };
    for (const auto& [key, value] : params) {
      if (absl::Status s =
              XgbStatus(XGBoosterSetParam(booster.get(), key, value.c_str()), "BoosterSetParam");
          !s.ok()) {
        return s;
      }
    }
    for (int it = 0; it < options_.num_boost_round; ++it) {
      if (absl::Status s = XgbStatus(XGBoosterUpdateOneIter(booster.get(), it, dtrain->get()),
                                     "BoosterUpdateOneIter");
          !s.ok()) {
        return s;
      }
    }
    booster_ = std::move(booster);
    num_features_ = ncol;
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<float>> Predict(
      const std::vector<std::vector<float>>& x) const override {
    if (!trained()) return absl::FailedPreconditionError("Predict called before Fit");
    if (x.empty()) return std::vector<float>();
    absl::StatusOr<DMatrix> dtest = MakeDMatrix(x, nullptr, num_features_);
    if (!dtest.ok()) return dtest.status();
    bst_ulong n = 0;
    const float* out = nullptr;
    if (absl::Status s = XgbStatus(XGBoosterPredict(booster_.get(), dtest->get(), /*option_mask=*/0,
                                                    /*ntree_limit=*/0, /*training=*/0, &n, &out),
                                   "BoosterPredict");
        !s.ok()) {
      return s;
    }
    if (n != x.size()) {
      return absl::InternalError(
          absl::StrCat("xgboost returned ", n, " predictions for ", x.size(), " rows"));
    }
    return std::vector<float>(out, out + n);
  }

  bool trained() const override { return booster_ != nullptr; }

 private:
  XGBoostOptions options_;
  Booster booster_;
  size_t num_features_ = 0;
};

}  // namespace

std::vector<float> NormalizedThroughput(const std::vector<double>& cost_s,
                                        const std::vector<int>& group) {
  std::map<int, double> best;  // Fastest successful cost per group.
  for (size_t i = 0; i < cost_s.size(); ++i) {
    if (Failed(cost_s[i])) continue;
    int g = group.empty() ? 0 : group[i];
    auto [it, inserted] = best.emplace(g, cost_s[i]);
    if (!inserted) it->second = std::min(it->second, cost_s[i]);
  }
  std::vector<float> out(cost_s.size(), 0.0f);
  for (size_t i = 0; i < cost_s.size(); ++i) {
    if (Failed(cost_s[i])) continue;
    out[i] = static_cast<float>(best.at(group.empty() ? 0 : group[i]) / cost_s[i]);
  }
  return out;
}

absl::StatusOr<std::unique_ptr<CostModel>> MakeXGBoostCostModel(const XGBoostOptions& options) {
  if (options.objective != "rank:pairwise" && options.objective != "reg:squarederror") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown cost model objective '", options.objective,
                     "' (expected rank:pairwise or reg:squarederror)"));
  }
  if (options.num_boost_round < 1 || options.max_depth < 1 || !(options.eta > 0.0) ||
      !(options.subsample > 0.0 && options.subsample <= 1.0) || options.nthread < 1) {
    return absl::InvalidArgumentError(
        "XGBoost options out of range: need num_boost_round >= 1, max_depth >= 1, eta > 0, "
        "0 < subsample <= 1, nthread >= 1");
  }
  return std::make_unique<XGBoostCostModel>(options);
}

}  // namespace tunefarm::tuner
