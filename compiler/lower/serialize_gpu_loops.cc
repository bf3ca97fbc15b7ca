#include "compiler/lower/serialize_gpu_loops.h"

#include <algorithm>
#include <vector>

#include "compiler/ir/ir_mutator.h"
#include "compiler/lower/insert_barriers.h"

namespace tunefarm::lower {
namespace {

class Serializer : public ir::IRMutator {
 protected:
  ir::Stmt Mutate_(const ir::ForNode* op, const ir::Stmt& self) override {
    // Barriers directly in a thread loop's body separate phases that every thread finishes
    // before any starts the next (a cross-thread reduction): one serial loop per phase.
    const auto* seq = op->body.as<ir::SeqNode>();
    if (op->for_kind == ir::ForKind::kThreadBinding && op->thread_tag.rfind("threadIdx", 0) == 0 &&
        seq != nullptr && std::any_of(seq->stmts.begin(), seq->stmts.end(), IsBarrier)) {
      std::vector<ir::Stmt> loops, phase;
      auto flush = [&] {
        if (phase.empty()) return;
        loops.push_back(ir::ForNode::Make(op->var, op->min, op->extent, ir::ForKind::kSerial,
                                          Mutate(ir::SeqNode::Make(std::move(phase))), "",
                                          op->pragmas));
        phase.clear();
      };
      for (const ir::Stmt& st : seq->stmts) {
        if (IsBarrier(st)) {
          flush();
        } else {
          phase.push_back(st);
        }
      }
      flush();
      return ir::SeqNode::Make(std::move(loops));
    }
    ir::Stmt body = Mutate(op->body);
    if (op->for_kind != ir::ForKind::kThreadBinding && body.same_as(op->body)) return self;
    ir::ForKind kind =
        op->for_kind == ir::ForKind::kThreadBinding ? ir::ForKind::kSerial : op->for_kind;
    return ir::ForNode::Make(op->var, op->min, op->extent, kind, body, "", op->pragmas);
  }
  ir::Stmt Mutate_(const ir::EvaluateNode* op, const ir::Stmt& self) override {
    return IsBarrier(self) ? ir::EvaluateNode::Make(0) : self;
  }
};

}  // namespace

LoweredFunc SerializeGpuLoops(const LoweredFunc& f) {
  LoweredFunc out = f;
  out.body = Serializer().Mutate(f.body);
  return out;
}

}  // namespace tunefarm::lower
