#include "tuner/features/itervar_features.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/lower/inject_prefetch.h"

namespace tunefarm::tuner {
namespace {

using ir::BinaryOp;
using ir::Expr;
using ir::Stmt;

float Lg(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }

struct Loop {
  const ir::VarNode* var;
  int64_t extent;
  ir::ForKind kind;
  Stmt body;
};

int64_t ConstOr(const Expr& e, int64_t fallback) {
  const int64_t* v = ir::AsConstInt(e);
  return v != nullptr ? *v : fallback;
}

// Finds the store with the largest trip count and the loops around it. Expressions hold no
// statements, so they are not walked.
class HotStoreFinder : public ir::IRVisitor {
 public:
  explicit HotStoreFinder(absl::flat_hash_map<const ir::BufferNode*, int64_t>* sizes)
      : sizes_(sizes) {}
  void Visit(const Expr&) override {}
  using ir::IRVisitor::Visit;

  bool found() const { return found_; }
  int64_t trip() const { return best_trip_; }
  const std::vector<Loop>& path() const { return best_path_; }
  int64_t replicas() const { return replicas_; }

 protected:
  void Visit_(const ir::ForNode* op) override {
    int64_t ext = std::max<int64_t>(1, ConstOr(op->extent, 1));
    stack_.push_back({op->var.get(), ext, op->for_kind, op->body});
    trip_ *= ext;
    Visit(op->body);
    trip_ /= ext;
    stack_.pop_back();
  }
  void Visit_(const ir::StoreNode*) override {
    if (!found_ || trip_ > best_trip_) {
      found_ = true;
      best_trip_ = trip_;
      best_path_ = stack_;
      replicas_ = 1;
    } else if (trip_ == best_trip_) {
      ++replicas_;
    }
  }
  void Visit_(const ir::AllocateNode* op) override {
    int64_t n = 1;
    for (const Expr& d : op->buffer->shape) n *= std::max<int64_t>(1, ConstOr(d, 1));
    (*sizes_)[op->buffer.get()] = n;
    Visit(op->body);
  }

 private:
  absl::flat_hash_map<const ir::BufferNode*, int64_t>* sizes_;
  std::vector<Loop> stack_;
  int64_t trip_ = 1;
  bool found_ = false;
  int64_t best_trip_ = 0;
  int64_t replicas_ = 0;
  std::vector<Loop> best_path_;
};

// Collects every variable of an expression (for index parts that are not linear).
class VarCollector : public ir::IRVisitor {
 public:
  std::vector<const ir::VarNode*> vars;

 protected:
  void Visit_(const ir::VarNode* op) override { vars.push_back(op); }
};

// The linear form of an index: coefficient per variable, plus the lane stride of a Ramp.
struct LinearForm {
  std::vector<std::pair<const ir::VarNode*, int64_t>> terms;
  int64_t lane_stride = 0;

  void Add(const ir::VarNode* v, int64_t c) {
    for (auto& t : terms) {
      if (t.first == v) {
        t.second += c;
        return;
      }
    }
    terms.push_back({v, c});
  }
  int64_t Coefficient(const ir::VarNode* v) const {
    for (const auto& t : terms) {
      if (t.first == v) return t.second;
    }
    return 0;
  }
};

void CollectLinear(const Expr& e, int64_t scale, LinearForm* f) {
  switch (e->kind) {
    case ir::ExprKind::kIntImm:
      return;
    case ir::ExprKind::kVar:
      f->Add(static_cast<const ir::VarNode*>(e.get()), scale);
      return;
    case ir::ExprKind::kCast:
      CollectLinear(e.as<ir::CastNode>()->value, scale, f);
      return;
    case ir::ExprKind::kBroadcast:
      CollectLinear(e.as<ir::BroadcastNode>()->value, scale, f);
      return;
    case ir::ExprKind::kRamp: {
      const auto* r = e.as<ir::RampNode>();
      CollectLinear(r->base, scale, f);
      if (const int64_t* s = ir::AsConstInt(r->stride)) {
        f->lane_stride += scale * *s;
        return;
      }
      break;
    }
    case ir::ExprKind::kBinary: {
      const auto* b = e.as<ir::BinaryNode>();
      if (b->op == BinaryOp::kAdd || b->op == BinaryOp::kSub) {
        CollectLinear(b->a, scale, f);
        CollectLinear(b->b, b->op == BinaryOp::kAdd ? scale : -scale, f);
        return;
      }
      if (b->op == BinaryOp::kMul) {
        if (const int64_t* c = ir::AsConstInt(b->b)) return CollectLinear(b->a, scale * *c, f);
        if (const int64_t* c = ir::AsConstInt(b->a)) return CollectLinear(b->b, scale * *c, f);
      }
      break;
    }
    default:
      break;
  }
  // Not linear: every variable inside moves the address by an unknown amount; count it as a
  // unit stride so the loop still registers as touching new elements.
  VarCollector vc;
  vc.Visit(e);
  for (const ir::VarNode* v : vc.vars) {
    if (f->Coefficient(v) == 0) f->Add(v, 1);
  }
}

struct Access {
  const ir::BufferNode* buffer;
  Expr index;
  int lanes;
  bool store;
  double weight;  // Executions per innermost iteration (sub-loops inside the body multiply).
};

// Counts operations and memory accesses of one innermost iteration.
class BodyAnalyzer : public ir::IRVisitor {
 public:
  double adds = 0, muls = 0, divs = 0, loads = 0, stores = 0;
  int max_lanes = 1;
  std::vector<Access> accesses;

 protected:
  void Visit_(const ir::ForNode* op) override {
    double saved = mult_;
    mult_ *= std::max<int64_t>(1, ConstOr(op->extent, 1));
    Visit(op->body);
    mult_ = saved;
  }
  void Visit_(const ir::LoadNode* op) override {
    int lanes = op->type.lanes;
    max_lanes = std::max(max_lanes, lanes);
    loads += lanes * mult_;
    if (!op->indices.empty()) {
      accesses.push_back({op->buffer.get(), op->indices.back(), lanes, false, mult_});
    }
    ir::IRVisitor::Visit_(op);
  }
  void Visit_(const ir::StoreNode* op) override {
    int lanes = op->value.defined() ? op->value.type().lanes : 1;
    max_lanes = std::max(max_lanes, lanes);
    stores += lanes * mult_;
    if (!op->indices.empty()) {
      accesses.push_back({op->buffer.get(), op->indices.back(), lanes, true, mult_});
    }
    ir::IRVisitor::Visit_(op);
  }
  void Visit_(const ir::BinaryNode* op) override {
    if (op->type.is_float()) {
      double n = op->type.lanes * mult_;
      switch (op->op) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub:
        case BinaryOp::kMin:
        case BinaryOp::kMax:
          adds += n;
          break;
        case BinaryOp::kMul:
          muls += n;
          break;
        case BinaryOp::kDiv:
          divs += n;
          break;
        default:
          break;
      }
    }
    ir::IRVisitor::Visit_(op);
  }
  void Visit_(const ir::CallNode* op) override {
    // A software prefetch reads nothing: its load only names an address (the knob that asks for
    // it is among the config's own features).
    if (op->name == lower::kPrefetchIntrinsic) return;
    if (op->type.is_float()) divs += op->type.lanes * mult_;
    ir::IRVisitor::Visit_(op);
  }

 private:
  double mult_ = 1.0;
};

struct BufferStats {
  const ir::BufferNode* buffer;
  int first_seen;
  double accesses = 0;       // Access operations per innermost iteration.
  double lane_accesses = 0;  // Elements accessed per innermost iteration.
  bool written = false;
  int lanes = 1;
  int64_t lane_stride = 0;
  std::vector<int64_t> stride;  // |coefficient| per level (max over accesses).
};

absl::StatusOr<std::vector<float>> Extract(
    const Stmt& body, absl::flat_hash_map<const ir::BufferNode*, int64_t> sizes) {
  if (!body.defined()) return absl::InvalidArgumentError("itervar features: undefined body");
  HotStoreFinder finder(&sizes);
  finder.Visit(body);
  if (!finder.found()) {
    return absl::InvalidArgumentError("itervar features: the loop nest stores nothing");
  }
  std::vector<Loop> path = finder.path();
  if (path.size() > static_cast<size_t>(kMaxLoops)) {
    path.erase(path.begin(), path.end() - kMaxLoops);
  }
  const int n = static_cast<int>(path.size());

  BodyAnalyzer body_stats;
  body_stats.Visit(n > 0 ? path.back().body : body);

  // Iterations of level l and every level inside it.
  std::vector<double> run(n + 1, 1.0);
  for (int l = n - 1; l >= 0; --l) run[l] = run[l + 1] * path[l].extent;

  std::vector<BufferStats> buffers;
  absl::flat_hash_map<const ir::BufferNode*, int> slot;
  for (const Access& a : body_stats.accesses) {
    auto [it, inserted] = slot.emplace(a.buffer, static_cast<int>(buffers.size()));
    if (inserted) {
      buffers.push_back({a.buffer, it->second});
      buffers.back().stride.assign(n, 0);
    }
    BufferStats& b = buffers[it->second];
    b.accesses += a.weight;
    b.lane_accesses += a.weight * a.lanes;
    b.written |= a.store;
    b.lanes = std::max(b.lanes, a.lanes);
    LinearForm form;
    CollectLinear(a.index, 1, &form);
    if (a.lanes > 1) b.lane_stride = std::max(b.lane_stride, std::abs(form.lane_stride));
    for (int l = 0; l < n; ++l) {
      b.stride[l] = std::max(b.stride[l], std::abs(form.Coefficient(path[l].var)));
    }
  }
  std::stable_sort(buffers.begin(), buffers.end(), [](const BufferStats& x, const BufferStats& y) {
    if (x.accesses != y.accesses) return x.accesses > y.accesses;
    if (x.buffer->name != y.buffer->name) return x.buffer->name < y.buffer->name;
    return x.first_seen < y.first_seen;
  });

  std::vector<float> f(kItervarFeatureLength, 0.0f);
  f[0] = Lg(static_cast<double>(finder.trip()));
  f[1] = static_cast<float>(n);
  f[2] = Lg(body_stats.adds);
  f[3] = Lg(body_stats.muls);
  f[4] = Lg(std::min(body_stats.adds, body_stats.muls));
  f[5] = Lg(body_stats.divs);
  f[6] = Lg(body_stats.loads);
  f[7] = Lg(body_stats.stores);
  f[8] = static_cast<float>(body_stats.max_lanes);
  f[9] = static_cast<float>(buffers.size());
  f[10] = Lg(static_cast<double>(finder.replicas()));

  for (int l = 0; l < n; ++l) {
    float* lf = f.data() + LoopFeatureOffset(l);
    lf[0] = Lg(static_cast<double>(path[l].extent));
    switch (path[l].kind) {
      case ir::ForKind::kSerial:
        lf[1] = 1;
        break;
      case ir::ForKind::kParallel:
        lf[2] = 1;
        break;
      case ir::ForKind::kVectorized:
        lf[3] = 1;
        break;
      case ir::ForKind::kUnrolled:
        lf[4] = 1;
        break;
      case ir::ForKind::kThreadBinding:
        lf[5] = 1;
        break;
    }
    lf[6] = Lg(run[l]);
    lf[7] = static_cast<float>(n - 1 - l);
  }

  for (int i = 0; i < std::min<int>(kMaxBuffers, buffers.size()); ++i) {
    const BufferStats& b = buffers[i];
    float* bf = f.data() + BufferFeatureOffset(i);
    bf[0] = Lg(b.accesses);
    bf[1] = b.written ? 1.0f : 0.0f;
    bf[2] = static_cast<float>(b.lanes);
    bf[3] = Lg(static_cast<double>(b.lane_stride));
    auto size_it = sizes.find(b.buffer);
    const double elem_bytes = b.buffer->dtype.bytes();
    const double lane_span = b.lane_stride != 0 ? b.lanes : 1;
    double distinct = lane_span;  // Elements touched by a run of the current level.
    for (int l = n - 1; l >= 0; --l) {
      if (b.stride[l] != 0) distinct *= path[l].extent;
      double capped = distinct;
      if (size_it != sizes.end()) capped = std::min(capped, static_cast<double>(size_it->second));
      float* blf = f.data() + BufferLoopFeatureOffset(i, l);
      blf[0] = Lg(static_cast<double>(b.stride[l]));
      blf[1] = Lg(capped * elem_bytes);
      blf[2] = Lg(b.lane_accesses * run[l] / std::max(1.0, capped));
    }
  }
  return f;
}

}  // namespace

absl::StatusOr<std::vector<float>> ExtractItervarFeatures(const lower::LoweredFunc& func) {
  absl::flat_hash_map<const ir::BufferNode*, int64_t> sizes;
  for (const lower::FuncArg& a : func.args) {
    int64_t n = 1;
    for (int64_t d : a.shape) n *= std::max<int64_t>(1, d);
    if (a.buffer != nullptr) sizes[a.buffer.get()] = n;
  }
  return Extract(func.body, std::move(sizes));
}

absl::StatusOr<std::vector<float>> ExtractItervarFeatures(const ir::Stmt& body) {
  return Extract(body, {});
}

std::vector<float> ConfigFeatures(const std::vector<float>& itervar,
                                  const std::vector<float>& knob_features) {
  std::vector<float> out;
  out.reserve(itervar.size() + knob_features.size());
  out.insert(out.end(), itervar.begin(), itervar.end());
  out.insert(out.end(), knob_features.begin(), knob_features.end());
  return out;
}

}  // namespace tunefarm::tuner
