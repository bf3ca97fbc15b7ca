#include "compiler/lower/inline_stages.h"

#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_util.h"

namespace tunefarm::lower {
namespace {

class Inliner : public ir::IRMutator {
 public:
  Inliner(const schedule::Stage& inlined, const ir::Expr& body) : stage_(inlined), body_(body) {}

 protected:
  ir::Expr Mutate_(const ir::LoadNode* op, const ir::Expr& self) override {
    ir::Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::LoadNode>();
    if (load->buffer.get() != stage_.op()) return e;
    ir::VarMap vmap;
    for (size_t i = 0; i < stage_.root_axes().size(); ++i) {
      vmap[stage_.root_axes()[i]->var.get()] = load->indices[i];
    }
    return ir::Substitute(body_, vmap);
  }

 private:
  const schedule::Stage& stage_;
  const ir::Expr& body_;
};

}  // namespace

Bodies InlineStages(const schedule::Schedule& sch) {
  Bodies bodies;
  // Producers come first, so an inlined body is final before anyone substitutes it.
  for (const auto& stage : sch.stages()) {
    if (stage->is_placeholder()) continue;
    ir::Expr body = stage->body();
    for (const auto& other : sch.stages()) {
      if (other.get() == stage.get()) break;
      if (other->attach().kind != schedule::Attach::Kind::kInline) continue;
      body = Inliner(*other, bodies.at(other->op())).Mutate(body);
    }
    bodies[stage->op()] = body;
  }
  return bodies;
}

}  // namespace tunefarm::lower
