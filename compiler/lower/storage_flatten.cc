#include "compiler/lower/storage_flatten.h"

#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using ir::Stmt;

class Flattener : public ir::IRMutator {
 public:
  explicit Flattener(const ir::VarMap& bindings) : bindings_(bindings) {}

 protected:
  Expr Mutate_(const ir::LoadNode* op, const Expr& self) override {
    bool changed = false;
    std::vector<Expr> idx = MutateAll(op->indices, &changed);
    if (idx.size() == 1 && !changed) return self;
    return ir::LoadNode::Make(op->buffer, {Flat(*op->buffer, idx)});
  }

  Stmt Mutate_(const ir::StoreNode* op, const Stmt& self) override {
    Expr v = Mutate(op->value);
    bool changed = !v.same_as(op->value);
    std::vector<Expr> idx = MutateAll(op->indices, &changed);
    if (idx.size() == 1 && !changed) return self;
    return ir::StoreNode::Make(op->buffer, v, {Flat(*op->buffer, idx)});
  }

 private:
  Expr Flat(const ir::BufferNode& b, const std::vector<Expr>& idx) {
    if (idx.size() == 1) return idx[0];
    std::vector<Expr> strides = BufferStrides(b, bindings_);
    Expr flat;
    for (size_t d = 0; d < idx.size(); ++d) {
      Expr term = idx[d] * strides[d];
      flat = flat.defined() ? flat + term : term;
    }
    return flat;
  }

  const ir::VarMap& bindings_;
};

}  // namespace

std::vector<Expr> BufferStrides(const ir::BufferNode& b, const ir::VarMap& bindings) {
  if (!b.strides.empty()) return b.strides;
  std::vector<Expr> strides(b.shape.size(), Expr(1));
  for (int d = static_cast<int>(b.shape.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * ir::Substitute(b.shape[d + 1], bindings);
  }
  return strides;
}

Stmt StorageFlatten(Stmt s, const ir::VarMap& bindings) { return Flattener(bindings).Mutate(s); }

std::optional<int64_t> AllocationElements(const ir::BufferNode& b) {
  if (b.shape.empty()) return 1;
  std::vector<Expr> strides = BufferStrides(b, {});
  const int64_t* s0 = ir::AsConstInt(strides[0]);
  const int64_t* e0 = ir::AsConstInt(b.shape[0]);
  if (s0 == nullptr || e0 == nullptr) return std::nullopt;
  return *s0 * *e0;
}

}  // namespace tunefarm::lower
