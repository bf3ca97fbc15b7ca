#include "compiler/lower/serialize_gpu_loops.h"

#include "compiler/ir/ir_mutator.h"
#include "compiler/lower/insert_barriers.h"

namespace tunefarm::lower {
namespace {

class Serializer : public ir::IRMutator {
 protected:
  ir::Stmt Mutate_(const ir::ForNode* op, const ir::Stmt& self) override {
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
