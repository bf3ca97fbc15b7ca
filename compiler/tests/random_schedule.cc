#include "compiler/tests/random_schedule.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/ir.h"

namespace tunefarm::testing {
namespace {

using schedule::Stage;
using te::IterVar;

bool IsReduce(const IterVar& iv) { return iv->kind == te::IterVarNode::Kind::kReduce; }

std::string Names(const std::vector<IterVar>& ivs) {
  std::vector<std::string> names;
  for (const IterVar& iv : ivs) names.push_back(iv->name());
  return absl::StrJoin(names, ", ");
}

bool Rejected(const absl::Status& s) {
  return s.code() == absl::StatusCode::kInvalidArgument ||
         s.code() == absl::StatusCode::kFailedPrecondition;
}

}  // namespace

RandomScheduler::RandomScheduler(uint64_t seed, RandomScheduleOptions options)
    : rng_(seed), options_(options) {}

bool RandomScheduler::Coin(double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng_) < p;
}

int64_t RandomScheduler::Uniform(int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
}

std::string RandomScheduler::Log() const { return absl::StrJoin(log_, "\n"); }

absl::Status RandomScheduler::Note(const std::string& what, const absl::Status& s) {
  if (s.ok()) {
    log_.push_back(what);
    return absl::OkStatus();
  }
  log_.push_back(absl::StrCat(what, "  -> rejected: ", s.ToString()));
  if (Rejected(s)) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed with an unexpected code: ", s.ToString()));
}

absl::Status RandomScheduler::ExpectRejected(const std::string& what, const absl::Status& s) {
  log_.push_back(absl::StrCat("[invalid] ", what, "  -> ", s.ToString()));
  if (Rejected(s)) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("invalid primitive ", what, " was not rejected cleanly: ", s.ToString()));
}

int64_t RandomScheduler::ExtentBound(const IterVar& iv) {
  auto it = extent_bound_.find(iv.get());
  if (it != extent_bound_.end()) return it->second;
  const int64_t* c = iv->dom.extent.defined() ? ir::AsConstInt(iv->dom.extent) : nullptr;
  return c != nullptr ? *c : std::numeric_limits<int32_t>::max();
}

void RandomScheduler::NoteSplit(const IterVar& parent, const IterVar& outer, const IterVar& inner,
                                int64_t factor, int64_t nparts) {
  int64_t ext = ExtentBound(parent);
  if (factor > 0) {
    extent_bound_[inner.get()] = std::min(factor, ext);
    extent_bound_[outer.get()] = (ext + factor - 1) / factor;
  } else {
    extent_bound_[outer.get()] = std::min(nparts, ext);
    extent_bound_[inner.get()] = (ext + nparts - 1) / nparts;
  }
}

absl::Status RandomScheduler::TransformLoops(Stage& stage) {
  const std::string name = stage.op()->name;
  const int ops = static_cast<int>(Uniform(0, 4));
  for (int n = 0; n < ops; ++n) {
    const std::vector<IterVar> leaves = stage.leaf_ivars();
    switch (Uniform(0, 4)) {
      case 0: {  // Split by a factor, often one that does not divide the extent.
        IterVar iv = Pick(leaves);
        int64_t factor = Pick(std::vector<int64_t>{1, 2, 3, 4, 5, 7, 8, 16});
        auto r = stage.Split(iv, factor);
        absl::Status s =
            Note(absl::StrCat(name, ".split(", iv->name(), ", factor=", factor, ")"), r.status());
        if (!s.ok()) return s;
        if (r.ok()) NoteSplit(iv, r->first, r->second, factor, 0);
        break;
      }
      case 1: {
        IterVar iv = Pick(leaves);
        int64_t nparts = Pick(std::vector<int64_t>{1, 2, 3, 4, 6});
        auto r = stage.SplitByNParts(iv, nparts);
        absl::Status s =
            Note(absl::StrCat(name, ".split(", iv->name(), ", nparts=", nparts, ")"), r.status());
        if (!s.ok()) return s;
        if (r.ok()) NoteSplit(iv, r->first, r->second, 0, nparts);
        break;
      }
      case 2: {  // Tile two data-parallel leaves.
        std::vector<IterVar> data;
        for (const IterVar& iv : leaves) {
          if (!IsReduce(iv)) data.push_back(iv);
        }
        if (data.size() < 2) break;
        size_t a = Uniform(0, data.size() - 2);
        int64_t fx = Uniform(1, 8), fy = Uniform(1, 8);
        auto r = stage.Tile(data[a], data[a + 1], fx, fy);
        absl::Status s = Note(absl::StrCat(name, ".tile(", data[a]->name(), ", ",
                                           data[a + 1]->name(), ", ", fx, ", ", fy, ")"),
                              r.status());
        if (!s.ok()) return s;
        if (r.ok()) {
          NoteSplit(data[a], (*r)[0], (*r)[2], fx, 0);
          NoteSplit(data[a + 1], (*r)[1], (*r)[3], fy, 0);
        }
        break;
      }
      case 3: {  // Fuse two adjacent leaves of the same kind.
        if (leaves.size() < 2) break;
        size_t a = Uniform(0, leaves.size() - 2);
        if (IsReduce(leaves[a]) != IsReduce(leaves[a + 1])) break;
        auto r = stage.Fuse(leaves[a], leaves[a + 1]);
        absl::Status s =
            Note(absl::StrCat(name, ".fuse(", leaves[a]->name(), ", ", leaves[a + 1]->name(), ")"),
                 r.status());
        if (!s.ok()) return s;
        if (r.ok()) {
          extent_bound_[r->get()] =
              std::min<int64_t>(std::numeric_limits<int32_t>::max(),
                                ExtentBound(leaves[a]) * ExtentBound(leaves[a + 1]));
        }
        break;
      }
      case 4: {  // Reorder a random subset of leaves.
        std::vector<IterVar> order;
        for (const IterVar& iv : leaves) {
          if (Coin(0.6)) order.push_back(iv);
        }
        std::shuffle(order.begin(), order.end(), rng_);
        absl::Status s =
            Note(absl::StrCat(name, ".reorder(", Names(order), ")"), stage.Reorder(order));
        if (!s.ok()) return s;
        break;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status RandomScheduler::Annotate(const schedule::Schedule& sch, Stage& stage, bool at_root) {
  const std::string name = stage.op()->name;
  const std::vector<IterVar>& leaves = stage.leaf_ivars();
  if (leaves.empty()) return absl::OkStatus();
  std::vector<IterVar> data;
  for (const IterVar& iv : leaves) {
    if (!IsReduce(iv)) data.push_back(iv);
  }
  // Parallel: one data-parallel loop of a root stage (attached stages may sit inside another
  // stage's parallel loop, and nested parallel loops are an error).
  if (at_root && !data.empty() && Coin(0.5)) {
    IterVar iv = data[Uniform(0, std::min<int64_t>(1, data.size() - 1))];
    if (absl::Status s =
            Note(absl::StrCat(name, ".parallel(", iv->name(), ")"), stage.Parallel(iv));
        !s.ok()) {
      return s;
    }
  }
  std::vector<IterVar> short_loops;
  for (const IterVar& iv : leaves) {
    if (ExtentBound(iv) <= 16) short_loops.push_back(iv);
  }
  if (!short_loops.empty() && Coin(0.3)) {
    IterVar iv = Pick(short_loops);
    if (absl::Status s = Note(absl::StrCat(name, ".unroll(", iv->name(), ")"), stage.Unroll(iv));
        !s.ok()) {
      return s;
    }
  }
  if (!IsReduce(leaves.back()) && Coin(0.5)) {
    if (absl::Status s = Note(absl::StrCat(name, ".vectorize(", leaves.back()->name(), ")"),
                              stage.Vectorize(leaves.back()));
        !s.ok()) {
      return s;
    }
  }
  if (!data.empty() && Coin(0.1)) {  // Another vector loop, possibly around the innermost.
    IterVar iv = Pick(data);
    if (absl::Status s =
            Note(absl::StrCat(name, ".vectorize(", iv->name(), ")"), stage.Vectorize(iv));
        !s.ok()) {
      return s;
    }
  }
  // A software prefetch of something the stage reads, at any of its loops, near or far ahead.
  if (stage.body().defined() && Coin(0.3)) {
    const std::vector<const te::OperationNode*> read = te::InputsOf(stage.body());
    const schedule::Stage* producer = read.empty() ? nullptr : sch.Find(Pick(read));
    if (producer != nullptr) {
      const IterVar iv = Pick(leaves);
      const int64_t distance = Pick(std::vector<int64_t>{4, 64, 256, 1024});
      if (absl::Status s = Note(absl::StrCat(name, ".prefetch(", producer->op()->name, ", ",
                                             iv->name(), ", ", distance, ")"),
                                stage.Prefetch(te::Tensor(producer->op_ptr()), iv, distance));
          !s.ok()) {
        return s;
      }
    }
  }
  if (Coin(0.2)) {
    int64_t step = Pick(std::vector<int64_t>{0, 4, 16, 64});
    if (absl::Status s = Note(absl::StrCat(name, ".pragma(", leaves[0]->name(),
                                           ", auto_unroll_max_step, ", step, ")"),
                              stage.Pragma(leaves[0], "auto_unroll_max_step", step));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status RandomScheduler::TryInvalid(schedule::Schedule* sch, Stage& stage) {
  const std::string name = stage.op()->name;
  const std::vector<IterVar> before = stage.leaf_ivars();
  const size_t relations = stage.relations().size();
  std::vector<IterVar> reduce, data;
  for (const IterVar& iv : before) (IsReduce(iv) ? reduce : data).push_back(iv);
  absl::Status s;
  switch (Uniform(0, 7)) {
    case 0:
      if (reduce.empty()) return absl::OkStatus();
      s = ExpectRejected(absl::StrCat(name, ".vectorize(", reduce[0]->name(), ")"),
                         stage.Vectorize(reduce[0]));
      break;
    case 1:
      if (reduce.empty()) return absl::OkStatus();
      s = ExpectRejected(absl::StrCat(name, ".parallel(", reduce[0]->name(), ")"),
                         stage.Parallel(reduce[0]));
      break;
    case 2:
      s = ExpectRejected(absl::StrCat(name, ".split(", before[0]->name(), ", factor=0)"),
                         stage.Split(before[0], 0).status());
      break;
    case 3:
      if (data.size() < 2) return absl::OkStatus();
      s = ExpectRejected(
          absl::StrCat(name, ".tile(", data[0]->name(), ", ", data[1]->name(), ", 4, 0)"),
          stage.Tile(data[0], data[1], 4, 0).status());
      break;
    case 4:
      if (before.size() < 3) return absl::OkStatus();
      s = ExpectRejected(
          absl::StrCat(name, ".fuse(", before[0]->name(), ", ", before[2]->name(), ")"),
          stage.Fuse(before[0], before[2]).status());
      break;
    case 5: {  // A loop of another stage.
      for (const auto& other : sch->stages()) {
        if (other.get() == &stage || other->leaf_ivars().empty()) continue;
        IterVar foreign = other->leaf_ivars()[0];
        s = ExpectRejected(
            absl::StrCat(name, ".reorder(", foreign->name(), " of ", other->op()->name, ")"),
            stage.Reorder({foreign, before[0]}));
        break;
      }
      break;
    }
    case 6:
      s = ExpectRejected(absl::StrCat(name, ".bind(", before[0]->name(), ", warpIdx.q)"),
                         stage.Bind(before[0], "warpIdx.q"));
      break;
    case 7:
      s = ExpectRejected(absl::StrCat(name, ".reorder(", before[0]->name(), " twice)"),
                         stage.Reorder({before[0], before[0]}));
      break;
  }
  if (!s.ok()) return s;
  if (stage.leaf_ivars() != before || stage.relations().size() != relations) {
    return absl::InternalError(absl::StrCat("a rejected primitive changed the loops of '", name,
                                            "': (", Names(before), ") became (",
                                            Names(stage.leaf_ivars()), ")"));
  }
  return absl::OkStatus();
}

absl::Status RandomScheduler::Run(schedule::Schedule* sch) {
  // cache_write first: it must come before any other primitive on the output.
  for (const te::Tensor& out : std::vector<te::Tensor>(sch->outputs())) {
    if (Coin(out.compute()->reduce_axis.empty() ? 0.2 : 0.6)) {
      auto r = sch->CacheWrite(out, "local");
      if (absl::Status s = Note(absl::StrCat("cache_write(", out.name(), ", local)"), r.status());
          !s.ok()) {
        return s;
      }
    }
  }
  // Inline some elementwise intermediates.
  for (const auto& stage : sch->stages()) {
    if (stage->is_placeholder() || !stage->reduce_axes().empty()) continue;
    bool is_output = false;
    for (const te::Tensor& t : sch->outputs()) is_output |= t.op() == stage->op();
    if (is_output || !Coin(0.3)) continue;
    if (absl::Status s =
            Note(absl::StrCat(stage->op()->name, ".compute_inline()"), stage->ComputeInline());
        !s.ok()) {
      return s;
    }
  }
  // Consumers before producers, so a producer attaches to its consumer's final loops.
  std::vector<Stage*> order;
  for (const auto& stage : sch->stages()) order.push_back(stage.get());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Stage& stage = **it;
    if (stage.is_placeholder() || stage.attach().kind == schedule::Attach::Kind::kInline) continue;
    bool is_output = false;
    for (const te::Tensor& t : sch->outputs()) is_output |= t.op() == stage.op();
    if (!is_output && Coin(0.6)) {
      std::vector<const Stage*> consumers;
      for (const Stage* c : sch->ConsumersOf(stage.op())) {
        if (c->attach().kind != schedule::Attach::Kind::kInline) consumers.push_back(c);
      }
      if (!consumers.empty()) {
        const Stage* target = Pick(consumers);
        // Other readers attached to the target must run inside the attach loop: choose a loop
        // outside theirs (usually; sometimes any loop, which lowering must reject cleanly).
        const auto& tl = target->leaf_ivars();
        int64_t limit = static_cast<int64_t>(tl.size()) - 1;
        for (const Stage* c : consumers) {
          if (c == target || c->attach().stage != target) continue;
          auto pos = std::find(tl.begin(), tl.end(), c->attach().ivar);
          if (pos != tl.end()) limit = std::min<int64_t>(limit, pos - tl.begin());
        }
        IterVar iv = Coin(0.9) ? tl[Uniform(0, limit)] : Pick(tl);
        if (absl::Status s = Note(absl::StrCat(stage.op()->name, ".compute_at(", target->op()->name,
                                               ", ", iv->name(), ")"),
                                  stage.ComputeAt(*target, iv));
            !s.ok()) {
          return s;
        }
      }
    }
    if (absl::Status s = TransformLoops(stage); !s.ok()) return s;
    if (Coin(options_.invalid_probability)) {
      if (absl::Status s = TryInvalid(sch, stage); !s.ok()) return s;
    }
    bool at_root = stage.attach().kind == schedule::Attach::Kind::kRoot;
    if (absl::Status s = Annotate(*sch, stage, at_root); !s.ok()) return s;
  }
  return absl::OkStatus();
}

lower::LowerOptions RandomScheduler::RandomLowerOptions() {
  lower::LowerOptions opts;
  opts.partition_loops = Coin(0.8);
  opts.auto_unroll_max_step = Pick(std::vector<int64_t>{0, 0, 0, 8, 32});
  log_.push_back(absl::StrCat("lower options: partition_loops=", opts.partition_loops,
                              " auto_unroll_max_step=", opts.auto_unroll_max_step));
  return opts;
}

}  // namespace tunefarm::testing
