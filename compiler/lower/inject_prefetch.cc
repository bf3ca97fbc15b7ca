#include "compiler/lower/inject_prefetch.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using ir::Stmt;

// A loop inside the prefetching loop's body, around a load.
struct InnerLoop {
  ir::Var var;
  int64_t min;
  int64_t extent;
};

// A load of the named buffer and the loops around it inside the body.
struct FoundLoad {
  const ir::LoadNode* load;
  std::vector<InnerLoop> loops;
  // False when a loop around it has bounds that are not constants, or a let binds a variable
  // there (which a prefetch placed before it could not name): the load gets no prefetch.
  bool described;
};

class LoadFinder : public ir::IRVisitor {
 public:
  explicit LoadFinder(std::string name) : name_(std::move(name)) {}
  std::vector<FoundLoad> found;

 protected:
  void Visit_(const ir::ForNode* op) override {
    const int64_t* mn = ir::AsConstInt(op->min);
    const int64_t* ext = ir::AsConstInt(op->extent);
    loops_.push_back({op->var, mn ? *mn : 0, ext ? *ext : 0});
    const bool saved = described_;
    described_ = described_ && mn != nullptr && ext != nullptr;
    Visit(op->body);
    described_ = saved;
    loops_.pop_back();
  }
  void Visit_(const ir::LetStmtNode* op) override {
    const bool saved = described_;
    described_ = false;
    Visit(op->body);
    described_ = saved;
  }
  void Visit_(const ir::LetNode* op) override {
    const bool saved = described_;
    described_ = false;
    ir::IRVisitor::Visit_(op);
    described_ = saved;
  }
  void Visit_(const ir::CallNode* op) override {
    if (op->name == kPrefetchIntrinsic) return;  // An inner loop's own prefetches.
    ir::IRVisitor::Visit_(op);
  }
  void Visit_(const ir::LoadNode* op) override {
    if (op->buffer->name == name_ && op->indices.size() == 1) {
      found.push_back({op, loops_, described_});
    }
    ir::IRVisitor::Visit_(op);
  }

 private:
  std::string name_;
  std::vector<InnerLoop> loops_;
  bool described_ = true;
};

Expr Const(const Expr& like, int64_t v) { return ir::IntImmNode::Make(like.type(), v); }

// The constant step of `index` in `v` (index(v + 1) - index(v)), when the index is affine in v.
std::optional<int64_t> Step(const arith::Analyzer& an, const Expr& index, const ir::Var& v) {
  ir::VarMap next;
  next[v.get()] = v + Const(v, 1);
  const Expr d = an.Simplify(ir::Substitute(index, next) - index);
  const int64_t* c = ir::AsConstInt(d);
  if (c == nullptr) return std::nullopt;
  // Affine, not just a constant difference at this point: the step is the same two apart.
  ir::VarMap twice;
  twice[v.get()] = v + Const(v, 2);
  const Expr d2 = an.Simplify(ir::Substitute(index, twice) - index);
  const int64_t* c2 = ir::AsConstInt(d2);
  if (c2 == nullptr || *c2 != 2 * *c) return std::nullopt;
  return *c;
}

// One variable (an inner loop's, or a vector's lane) of a load's index.
struct Term {
  ir::Var var;  // Undefined for the lanes.
  int64_t step;
  int64_t extent;
};

class Injector : public ir::IRMutator {
 protected:
  Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
    Stmt s = ir::IRMutator::Mutate_(op, self);
    const auto* f = s.as<ir::ForNode>();
    std::vector<Stmt> prefetches;
    for (const auto& [key, distance] : f->pragmas) {
      if (!absl::StartsWith(key, schedule::kPrefetchPragmaPrefix)) continue;
      LoadFinder finder(key.substr(std::string(schedule::kPrefetchPragmaPrefix).size()));
      finder.Visit(f->body);
      std::vector<Expr> addresses;
      for (const FoundLoad& fl : finder.found) {
        if (fl.described) AddRuns(f->var, distance, fl, &addresses);
      }
      for (const Expr& a : addresses) {
        prefetches.push_back(ir::EvaluateNode::Make(
            ir::CallNode::Make(ir::DataType::Int(32), kPrefetchIntrinsic, {a})));
      }
    }
    if (prefetches.empty()) return s;
    prefetches.push_back(f->body);
    return ir::ForNode::Make(f->var, f->min, f->extent, f->for_kind,
                             ir::SeqNode::Make(std::move(prefetches)), f->thread_tag, f->pragmas);
  }

 private:
  // Appends to `addresses` the loads (of one element each) whose lines cover what `fl` reads
  // `distance` bytes ahead, those not already there.
  void AddRuns(const ir::Var& loop, int64_t distance, const FoundLoad& fl,
               std::vector<Expr>* addresses) {
    arith::Analyzer an;
    for (const InnerLoop& l : fl.loops) an.Bind(l.var.get(), l.min, l.extent);
    Expr index = fl.load->indices[0];
    std::vector<Term> terms;
    if (const auto* ramp = index.as<ir::RampNode>()) {
      const int64_t* stride = ir::AsConstInt(ramp->stride);
      if (stride == nullptr) return;
      terms.push_back({ir::Var(), *stride, ramp->lanes});
      index = ramp->base;
    }
    ir::VarMap at_min;
    for (const InnerLoop& l : fl.loops) {
      std::optional<int64_t> step = Step(an, index, l.var);
      if (!step.has_value()) return;
      if (*step != 0 && l.extent > 1) terms.push_back({l.var, *step, l.extent});
      at_min[l.var.get()] = Const(l.var, l.min);
    }
    std::optional<int64_t> loop_step = Step(an, index, loop);
    if (!loop_step.has_value() || *loop_step == 0) return;

    const int64_t elem = std::max<int64_t>(1, fl.load->buffer->dtype.bytes());
    const int64_t line = std::max<int64_t>(1, kPrefetchLineBytes / elem);
    // The contiguous run: terms in increasing step, each continuing what the smaller ones cover.
    std::sort(terms.begin(), terms.end(),
              [](const Term& a, const Term& b) { return std::abs(a.step) < std::abs(b.step); });
    int64_t span = 1;
    size_t t = 0;
    for (; t < terms.size() && terms[t].step > 0 && terms[t].step <= span + line - 1; ++t) {
      span += terms[t].step * (terms[t].extent - 1);
    }
    // The rest are separate runs, enumerated.
    std::vector<int64_t> starts = {0};
    for (; t < terms.size(); ++t) {
      std::vector<int64_t> next;
      for (int64_t s : starts) {
        for (int64_t k = 0; k < terms[t].extent; ++k) next.push_back(s + k * terms[t].step);
      }
      if (static_cast<int64_t>(next.size()) > kMaxPrefetchRuns) return;
      starts = std::move(next);
    }
    const int64_t lines = (span * elem + kPrefetchLineBytes - 1) / kPrefetchLineBytes;
    if (lines * static_cast<int64_t>(starts.size()) > kMaxPrefetchLines) return;
    const int64_t stride_bytes = std::abs(*loop_step) * elem;
    const int64_t ahead = (distance + stride_bytes - 1) / stride_bytes;
    ir::VarMap later = at_min;
    later[loop.get()] = loop + Const(loop, ahead);
    const Expr base = an.Simplify(ir::Substitute(index, later));
    for (int64_t s : starts) {
      for (int64_t p = 0; p < lines; ++p) {
        Expr at = an.Simplify(base + Const(base, s + p * line));
        bool seen = false;
        for (const Expr& a : *addresses) {
          seen = seen || ir::StructuralEqual(a.as<ir::LoadNode>()->indices[0], at);
        }
        if (!seen) addresses->push_back(ir::LoadNode::Make(fl.load->buffer, {at}));
      }
    }
  }
};

}  // namespace

Stmt InjectPrefetch(Stmt s) { return Injector().Mutate(s); }

bool IsPrefetch(const Stmt& s) {
  const auto* e = s.as<ir::EvaluateNode>();
  const auto* c = e == nullptr ? nullptr : e->value.as<ir::CallNode>();
  return c != nullptr && c->name == kPrefetchIntrinsic;
}

}  // namespace tunefarm::lower
