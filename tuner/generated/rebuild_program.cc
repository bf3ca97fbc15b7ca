#include "tuner/generated/rebuild_program.h"

#include <string>
#include <utility>

#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_util.h"
#include "tuner/generated/sketch.h"

namespace tunefarm::tuner {
namespace {

using ir::Expr;
using te::Tensor;

// Redirects loads of replaced stages to their new versions.
class LoadRedirect : public ir::IRMutator {
 public:
  explicit LoadRedirect(const absl::flat_hash_map<const te::OperationNode*, Tensor>* replaced)
      : replaced_(replaced) {}

 protected:
  Expr Mutate_(const ir::LoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::LoadNode>();
    if (auto it = replaced_->find(te::AsOperation(load->buffer)); it != replaced_->end()) {
      return it->second(load->indices);
    }
    return e;
  }

 private:
  const absl::flat_hash_map<const te::OperationNode*, Tensor>* replaced_;
};

}  // namespace

absl::StatusOr<std::vector<Tensor>> RebuildProgram(
    const std::vector<Tensor>& args, absl::flat_hash_map<const te::OperationNode*, Tensor> replaced,
    const BodyRewrite& rewrite) {
  for (const Tensor& t : ComputeStages(args.back())) {
    if (replaced.contains(t.op())) continue;
    const te::ComputeOpNode* c = t.compute();
    Expr body = rewrite ? rewrite(t, c->body) : c->body;
    LoadRedirect redirect(&replaced);
    body = redirect.Mutate(body);
    if (body.same_as(c->body)) continue;
    std::vector<Expr> shape;
    std::vector<std::string> names;
    for (const te::IterVar& iv : c->axis) {
      shape.push_back(iv->dom.extent);
      names.push_back(iv->name());
    }
    absl::StatusOr<Tensor> rebuilt = te::Compute(
        shape,
        [&](const std::vector<ir::Var>& v) {
          ir::VarMap vmap;
          for (size_t d = 0; d < v.size(); ++d) vmap[c->axis[d]->var.as<ir::VarNode>()] = v[d];
          return ir::Substitute(body, vmap);
        },
        t.name(), names);
    if (!rebuilt.ok()) return rebuilt.status();
    replaced[t.op()] = *rebuilt;
  }
  std::vector<Tensor> out(args.begin(), args.end() - 1);
  auto it = replaced.find(args.back().op());
  out.push_back(it != replaced.end() ? it->second : args.back());
  return out;
}

}  // namespace tunefarm::tuner
