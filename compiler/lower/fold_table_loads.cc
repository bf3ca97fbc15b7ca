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
    Table& table = TableOf(load->buffer);
    if (table.op == nullptr) return e;
    const Expr index = an_.Simplify(load->indices[0]);
    const int64_t* flat = ir::AsConstInt(index);
    if (flat == nullptr) return e;
    // An unrolled transform reads each element many times: it is evaluated once.
    auto [it, is_new] = table.values.try_emplace(*flat);
    if (is_new) it->second = Element(table, *flat);
    const Expr& value = it->second;
    if (!value.defined() || value.type() != load->type) return e;
    folded.insert(table.op);
    return value;
  }

 private:
  struct Table {
    const te::ComputeOpNode* op = nullptr;  // Null: not a table, or its layout is not constant.
    std::vector<int64_t> strides, extents;
    // The constant value of the element at each flat index read so far (undefined: none).
    absl::flat_hash_map<int64_t, Expr> values;
  };

  // te::AsTable of `buffer` with its constant strides and extents, computed once per buffer.
  Table& TableOf(const ir::Buffer& buffer) {
    auto [it, is_new] = tables_.try_emplace(buffer.get());
    if (!is_new) return it->second;
    Table& t = it->second;
    const te::ComputeOpNode* op = te::AsTable(buffer);
    if (op == nullptr || op->axis.size() != op->shape.size()) return t;
    const std::vector<Expr> strides = BufferStrides(*op, bindings_);
    for (size_t d = 0; d < op->axis.size(); ++d) {
      const Expr stride_e = an_.Simplify(ir::Substitute(strides[d], bindings_));
      const Expr extent_e = an_.Simplify(ir::Substitute(op->shape[d], bindings_));
      const int64_t* stride = ir::AsConstInt(stride_e);
      const int64_t* extent = ir::AsConstInt(extent_e);
      if (stride == nullptr || extent == nullptr || *stride <= 0) return t;
      t.strides.push_back(*stride);
      t.extents.push_back(*extent);
    }
    t.op = op;
    return t;
  }

  // The table's element at `flat` if it is a constant, else undefined.
  Expr Element(const Table& table, int64_t flat) {
    if (flat < 0) return Expr();
    ir::VarMap at = bindings_;
    int64_t rest = flat;
    for (size_t d = 0; d < table.strides.size(); ++d) {
      const int64_t i = rest / table.strides[d];
      rest %= table.strides[d];
      if (i >= table.extents[d]) return Expr();
      const ir::Var& v = table.op->axis[d]->var;
      at[v.get()] = ir::IntImmNode::Make(v.type(), i);
    }
    if (rest != 0) return Expr();
    Expr value = an_.Simplify(ir::Substitute(table.op->body, at));
    const bool constant =
        value.as<ir::FloatImmNode>() != nullptr || value.as<ir::IntImmNode>() != nullptr;
    return constant ? value : Expr();
  }

  const ir::VarMap& bindings_;
  arith::Analyzer an_;
  absl::flat_hash_map<const ir::BufferNode*, Table> tables_;
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
