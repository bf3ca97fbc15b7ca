#include "compiler/lower/fold_table_loads.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/lower/storage_flatten.h"
#include "compiler/te/tensor.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using ir::Stmt;

class TableLoadFolder : public ir::IRMutator {
 public:
  explicit TableLoadFolder(const ir::VarMap& bindings) : bindings_(bindings) {}

  // Tables with at least one folded load.
  absl::flat_hash_set<const ir::BufferNode*> folded;

 protected:
  Expr Mutate_(const ir::LoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::LoadNode>();
    if (load == nullptr || load->indices.size() != 1 || !load->type.is_scalar()) return e;
    auto [it, is_new] = tables_.try_emplace(load->buffer.get(), nullptr);
    if (is_new) it->second = te::AsTable(load->buffer);
    const te::ComputeOpNode* table = it->second;
    if (table == nullptr || table->axis.size() != table->shape.size()) return e;
    const Expr index = an_.Simplify(load->indices[0]);
    const int64_t* flat = ir::AsConstInt(index);
    if (flat == nullptr) return e;
    // The element's indices, from the flat index and the buffer's strides.
    const std::vector<Expr> strides = BufferStrides(*table, bindings_);
    ir::VarMap at = bindings_;
    int64_t rest = *flat;
    for (size_t d = 0; d < table->axis.size(); ++d) {
      const Expr stride_e = an_.Simplify(ir::Substitute(strides[d], bindings_));
      const Expr extent_e = an_.Simplify(ir::Substitute(table->shape[d], bindings_));
      const int64_t* stride = ir::AsConstInt(stride_e);
      const int64_t* extent = ir::AsConstInt(extent_e);
      if (stride == nullptr || extent == nullptr || *stride <= 0 || rest < 0) return e;
      const int64_t i = rest / *stride;
      rest %= *stride;
      if (i >= *extent) return e;
      const ir::Var& v = table->axis[d]->var;
      at[v.get()] = ir::IntImmNode::Make(v.type(), i);
    }
    if (rest != 0) return e;
    Expr value = an_.Simplify(ir::Substitute(table->body, at));
    const bool constant =
        value.as<ir::FloatImmNode>() != nullptr || value.as<ir::IntImmNode>() != nullptr;
    if (!constant || value.type() != load->type) return e;
    folded.insert(table);
    return value;
  }

 private:
  const ir::VarMap& bindings_;
  arith::Analyzer an_;
  // te::AsTable of each buffer loaded so far.
  absl::flat_hash_map<const ir::BufferNode*, const te::ComputeOpNode*> tables_;
};

// The buffers something still loads from, and those allocated inside the kernel (a table that
// is an argument stays written).
class BufferUses : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::BufferNode*> loaded;
  absl::flat_hash_set<const ir::BufferNode*> allocated;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    loaded.insert(op->buffer.get());
    IRVisitor::Visit_(op);
  }
  void Visit_(const ir::AllocateNode* op) override {
    allocated.insert(op->buffer.get());
    IRVisitor::Visit_(op);
  }
};

// Drops the allocation of each table in `dead` and the stores that compute it.
class DropTables : public ir::IRMutator {
 public:
  explicit DropTables(const absl::flat_hash_set<const ir::BufferNode*>& dead) : dead_(dead) {}

 protected:
  Stmt Mutate_(const ir::AllocateNode* op, const Stmt& self) override {
    if (dead_.contains(op->buffer.get())) return Mutate(op->body);
    return IRMutator::Mutate_(op, self);
  }
  Stmt Mutate_(const ir::StoreNode* op, const Stmt& self) override {
    if (dead_.contains(op->buffer.get())) return ir::EvaluateNode::Make(0);
    return IRMutator::Mutate_(op, self);
  }

 private:
  const absl::flat_hash_set<const ir::BufferNode*>& dead_;
};

}  // namespace

Stmt FoldTableLoads(Stmt s, const ir::VarMap& bindings) {
  TableLoadFolder folder(bindings);
  s = folder.Mutate(s);
  if (folder.folded.empty()) return s;
  BufferUses uses;
  uses.Visit(s);
  absl::flat_hash_set<const ir::BufferNode*> dead;
  for (const ir::BufferNode* t : folder.folded) {
    if (!uses.loaded.contains(t) && uses.allocated.contains(t)) dead.insert(t);
  }
  return dead.empty() ? s : DropTables(dead).Mutate(s);
}

}  // namespace tunefarm::lower
