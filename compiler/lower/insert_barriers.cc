#include "compiler/lower/insert_barriers.h"

#include <vector>

#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::lower {
namespace {

using ir::Stmt;

// What a statement does to shared memory and whether it binds GPU indices.
class SharedAccess : public ir::IRVisitor {
 public:
  bool writes = false;
  bool reads = false;
  bool accesses = false;
  bool has_thread_loop = false;

 protected:
  void Visit_(const ir::StoreNode* op) override {
    if (op->buffer->scope == "shared") writes = accesses = true;
    IRVisitor::Visit_(op);
  }
  void Visit_(const ir::LoadNode* op) override {
    if (op->buffer->scope == "shared") reads = accesses = true;
    IRVisitor::Visit_(op);
  }
  void Visit_(const ir::ForNode* op) override {
    if (op->for_kind == ir::ForKind::kThreadBinding) has_thread_loop = true;
    IRVisitor::Visit_(op);
  }
};

template <typename Node>
SharedAccess Analyze(const Node& n) {
  SharedAccess a;
  a.Visit(n);
  return a;
}

// Takes the shared allocations out of the body: a block's shared memory lives as long as the
// block, and with them gone the fills of several buffers become adjacent statements of one
// sequence (one fence around all of them, not one each).
class HoistShared : public ir::IRMutator {
 public:
  std::vector<ir::Buffer> buffers;

 protected:
  Stmt Mutate_(const ir::AllocateNode* op, const Stmt& self) override {
    if (op->buffer->scope != "shared") return IRMutator::Mutate_(op, self);
    buffers.push_back(op->buffer);
    return Mutate(op->body);
  }
};

// Fences every run of shared-memory writers in a sequence: a barrier before a run (the
// previous readers are done) and before the first statement after it that reads shared memory
// (even one that also writes). In a loop whose body ends inside a run and reads shared memory,
// a barrier at the end of the body fences the writes from the next iteration's reads.
class Fence : public ir::IRMutator {
 protected:
  Stmt Mutate_(const ir::SeqNode* op, const Stmt& self) override {
    std::vector<Stmt> children;
    for (const Stmt& c : op->stmts) children.push_back(Mutate(c));
    std::vector<Stmt> out;
    bool in_run = false;
    for (const Stmt& c : children) {
      SharedAccess a = Analyze(c);
      if (in_run && a.reads) {
        out.push_back(MakeBarrier());
        in_run = false;
      }
      if (a.writes && !in_run) out.push_back(MakeBarrier());
      out.push_back(c);
      in_run = a.writes || (in_run && !a.reads);
    }
    return ir::SeqNode::Make(std::move(out));
  }

  Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
    Stmt mutated = IRMutator::Mutate_(op, self);
    const auto* loop = mutated.as<ir::ForNode>();
    if (loop == nullptr || loop->for_kind == ir::ForKind::kThreadBinding) return mutated;
    SharedAccess a = Analyze(loop->body);
    if (!a.reads || !EndsInRun(loop->body)) return mutated;
    return ir::ForNode::Make(loop->var, loop->min, loop->extent, loop->for_kind,
                             ir::SeqNode::Make({loop->body, MakeBarrier()}), loop->thread_tag,
                             loop->pragmas);
  }

 private:
  // Whether `body` ends with shared-memory writes that no barrier follows.
  static bool EndsInRun(const Stmt& body) {
    std::vector<Stmt> stmts = {body};
    if (const auto* seq = body.as<ir::SeqNode>()) stmts = seq->stmts;
    bool in_run = false;
    for (const Stmt& c : stmts) {
      if (IsBarrier(c)) {
        in_run = false;
        continue;
      }
      SharedAccess a = Analyze(c);
      in_run = a.writes || (in_run && !a.reads);
    }
    return in_run;
  }
};

// Drops barriers that no shared-memory access precedes since the last barrier. `dirty_` is
// conservative: true on entry to a loop body that accesses shared memory (what its previous
// iteration did after its last barrier is not tracked).
class Prune : public ir::IRMutator {
 protected:
  Stmt Mutate_(const ir::EvaluateNode* op, const Stmt& self) override {
    if (!IsBarrier(self)) return self;
    if (!dirty_) return ir::EvaluateNode::Make(0);
    dirty_ = false;
    return self;
  }
  Stmt Mutate_(const ir::StoreNode* op, const Stmt& self) override {
    if (Analyze(self).accesses) dirty_ = true;
    return self;
  }
  Stmt Mutate_(const ir::LetStmtNode* op, const Stmt& self) override {
    if (Analyze(op->value).accesses) dirty_ = true;
    return IRMutator::Mutate_(op, self);
  }
  Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
    // Loops bound to GPU indices run once per thread: not loops at all.
    if (op->for_kind == ir::ForKind::kThreadBinding) return IRMutator::Mutate_(op, self);
    bool before = dirty_;
    // The previous iteration's accesses after its last barrier precede this one's first.
    dirty_ = before || Analyze(op->body).accesses;
    Stmt r = IRMutator::Mutate_(op, self);
    // Zero iterations leave the state as it was.
    dirty_ = dirty_ || before;
    return r;
  }
  Stmt Mutate_(const ir::IfThenElseNode* op, const Stmt& self) override {
    bool before = dirty_;
    if (Analyze(op->cond).accesses) before = true;
    dirty_ = before;
    Stmt then_case = Mutate(op->then_case);
    bool after_then = dirty_;
    dirty_ = before;
    Stmt else_case = op->else_case.defined() ? Mutate(op->else_case) : op->else_case;
    dirty_ = dirty_ || after_then;
    return ir::IfThenElseNode::Make(op->cond, then_case, else_case);
  }

 private:
  bool dirty_ = false;
};

}  // namespace

Stmt MakeBarrier() {
  return ir::EvaluateNode::Make(ir::CallNode::Make(ir::DataType::Int(32), kBarrierIntrinsic, {}));
}

bool IsBarrierCall(const ir::Expr& value) {
  const auto* call = value.as<ir::CallNode>();
  return call != nullptr && call->name == kBarrierIntrinsic;
}

bool IsBarrier(const Stmt& s) {
  const auto* ev = s.as<ir::EvaluateNode>();
  return ev != nullptr && IsBarrierCall(ev->value);
}

Stmt InsertBarriers(const Stmt& s) {
  SharedAccess a = Analyze(s);
  if (!a.has_thread_loop || !a.writes) return s;
  HoistShared hoist;
  Stmt body = hoist.Mutate(s);
  body = Prune().Mutate(Fence().Mutate(body));
  for (auto it = hoist.buffers.rbegin(); it != hoist.buffers.rend(); ++it) {
    body = ir::AllocateNode::Make(*it, body);
  }
  return body;
}

}  // namespace tunefarm::lower
