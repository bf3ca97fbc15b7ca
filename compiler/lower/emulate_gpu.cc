#include "compiler/lower/emulate_gpu.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/lower/insert_barriers.h"
#include "compiler/lower/storage_flatten.h"
#include "compiler/lower/verify_gpu.h"

namespace tunefarm::lower {
namespace {

using ir::Expr;
using ir::Stmt;

constexpr const char* kThreadTags[] = {"threadIdx.z", "threadIdx.y", "threadIdx.x"};

bool IsThreadTag(const std::string& tag) { return tag.rfind("threadIdx.", 0) == 0; }

class BarrierFinder : public ir::IRVisitor {
 public:
  bool found = false;

 protected:
  void Visit_(const ir::EvaluateNode* op) override {
    if (IsBarrierCall(op->value)) found = true;
  }
};

bool ContainsBarrier(const Stmt& s) {
  BarrierFinder f;
  f.Visit(s);
  return f.found;
}

// Rewrites the accesses of a per-thread buffer into its copy for the current thread.
class Replicate : public ir::IRMutator {
 public:
  Replicate(const ir::BufferNode* from, ir::Buffer to, Expr offset)
      : from_(from), to_(std::move(to)), offset_(std::move(offset)) {}

 protected:
  Expr Mutate_(const ir::LoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::LoadNode>();
    if (load->buffer.get() != from_) return e;
    return ir::LoadNode::Make(to_, {Shift(load->indices[0])});
  }
  Stmt Mutate_(const ir::StoreNode* op, const Stmt& self) override {
    Stmt s = IRMutator::Mutate_(op, self);
    const auto* store = s.as<ir::StoreNode>();
    if (store->buffer.get() != from_) return s;
    return ir::StoreNode::Make(to_, store->value, {Shift(store->indices[0])});
  }

 private:
  Expr Shift(const Expr& index) {
    int lanes = index.type().lanes;
    return index + (lanes > 1 ? ir::BroadcastNode::Make(offset_, lanes) : offset_);
  }
  const ir::BufferNode* from_;
  ir::Buffer to_;
  Expr offset_;
};

class Emulator {
 public:
  explicit Emulator(const Stmt& body) {
    const std::map<std::string, int64_t> extents = IndexExtents(body);
    for (const char* tag : kThreadTags) {
      auto it = extents.find(tag);
      if (it == extents.end()) continue;
      tid_[tag] = ir::Var(absl::StrCat("emu.", tag), ir::DataType::Int(32));
      extent_[tag] = it->second;
    }
  }

  // Blocks one after another; inside a block, the threads in lockstep.
  absl::StatusOr<Stmt> Kernel(const Stmt& s) {
    if (const auto* f = s.as<ir::ForNode>();
        f != nullptr && f->for_kind == ir::ForKind::kThreadBinding && !IsThreadTag(f->thread_tag)) {
      auto body = Kernel(f->body);
      if (!body.ok()) return body.status();
      return ir::ForNode::Make(f->var, f->min, f->extent, ir::ForKind::kSerial, *body);
    }
    if (const auto* a = s.as<ir::AllocateNode>(); a != nullptr && a->buffer->scope == "shared") {
      auto body = Kernel(a->body);
      if (!body.ok()) return body.status();
      return ir::AllocateNode::Make(a->buffer, *body);
    }
    if (const auto* seq = s.as<ir::SeqNode>()) {
      std::vector<Stmt> out;
      for (const Stmt& c : seq->stmts) {
        auto k = Kernel(c);
        if (!k.ok()) return k.status();
        out.push_back(*k);
      }
      return ir::SeqNode::Make(std::move(out));
    }
    return Fission(s);
  }

 private:
  bool UsesThread(const Expr& e) const {
    return ir::UsesVar(e, [&](const ir::VarNode* v) {
      for (const auto& [tag, var] : tid_) {
        if (var.get() == v) return true;
      }
      return false;
    });
  }

  // All threads of the block run `s` (which holds no barrier) one after another.
  Stmt ThreadLoops(Stmt s) {
    s = Leaf(s);
    for (auto it = std::rbegin(kThreadTags); it != std::rend(kThreadTags); ++it) {
      auto var = tid_.find(*it);
      if (var == tid_.end()) continue;
      s = ir::ForNode::Make(var->second, Expr(0), Expr(static_cast<int>(extent_.at(*it))),
                            ir::ForKind::kSerial, s);
    }
    return s;
  }

  // Inside one thread: loops bound to a thread index are that index.
  Stmt Leaf(const Stmt& s) {
    class Bind : public ir::IRMutator {
     public:
      explicit Bind(Emulator* e) : e_(e) {}

     protected:
      Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
        if (op->for_kind != ir::ForKind::kThreadBinding) return IRMutator::Mutate_(op, self);
        if (!IsThreadTag(op->thread_tag)) {
          return ir::ForNode::Make(op->var, op->min, op->extent, ir::ForKind::kSerial,
                                   Mutate(op->body));
        }
        const ir::Var& tid = e_->tid_.at(op->thread_tag);
        Stmt body = Mutate(ir::Substitute(op->body, {{op->var.get(), op->min + tid}}));
        const int64_t* ext = ir::AsConstInt(op->extent);
        if (ext != nullptr && *ext >= e_->extent_.at(op->thread_tag)) return body;
        return ir::IfThenElseNode::Make(tid < op->extent, body);
      }
      Stmt Mutate_(const ir::EvaluateNode* op, const Stmt& self) override {
        return IsBarrier(self) ? ir::EvaluateNode::Make(0) : self;
      }

     private:
      Emulator* e_;
    } bind(this);
    return bind.Mutate(s);
  }

  Expr LinearTid() const {
    Expr id(0);
    for (const char* tag : kThreadTags) {
      auto it = tid_.find(tag);
      if (it != tid_.end()) id = id * Expr(static_cast<int>(extent_.at(tag))) + it->second;
    }
    return id;
  }

  int64_t Threads() const {
    int64_t n = 1;
    for (const auto& [tag, e] : extent_) n *= e;
    return n;
  }

  absl::Status Unsupported(const std::string& what) {
    return absl::UnimplementedError(
        absl::StrCat("GPU emulation: ", what, " around a barrier depends on the thread"));
  }

  // `s` for every thread of the block, in lockstep at its barriers.
  absl::StatusOr<Stmt> Fission(const Stmt& s) {
    if (!ContainsBarrier(s)) return ThreadLoops(s);
    if (IsBarrier(s)) return ir::EvaluateNode::Make(0);
    if (const auto* seq = s.as<ir::SeqNode>()) {
      std::vector<Stmt> out;
      for (const Stmt& c : seq->stmts) {
        auto f = Fission(c);
        if (!f.ok()) return f.status();
        out.push_back(*f);
      }
      return ir::SeqNode::Make(std::move(out));
    }
    if (const auto* f = s.as<ir::ForNode>()) {
      if (f->for_kind == ir::ForKind::kThreadBinding && IsThreadTag(f->thread_tag)) {
        const int64_t* ext = ir::AsConstInt(f->extent);
        if (ext == nullptr || *ext != extent_.at(f->thread_tag)) {
          return Unsupported(absl::StrCat("loop '", f->var.name(), "' shorter than its index"));
        }
        return Fission(ir::Substitute(f->body, {{f->var.get(), f->min + tid_.at(f->thread_tag)}}));
      }
      if (UsesThread(f->min) || UsesThread(f->extent)) {
        return Unsupported(absl::StrCat("the bounds of loop '", f->var.name(), "'"));
      }
      auto body = Fission(f->body);
      if (!body.ok()) return body.status();
      return ir::ForNode::Make(f->var, f->min, f->extent, ir::ForKind::kSerial, *body);
    }
    if (const auto* i = s.as<ir::IfThenElseNode>()) {
      if (UsesThread(i->cond)) return Unsupported("a condition");
      auto then_case = Fission(i->then_case);
      if (!then_case.ok()) return then_case.status();
      Stmt else_case;
      if (i->else_case.defined()) {
        auto e = Fission(i->else_case);
        if (!e.ok()) return e.status();
        else_case = *e;
      }
      return ir::IfThenElseNode::Make(i->cond, *then_case, else_case);
    }
    if (const auto* a = s.as<ir::AllocateNode>()) {
      if (a->buffer->scope == "shared" || a->buffer->scope == "global") {
        auto body = Fission(a->body);
        if (!body.ok()) return body.status();
        return ir::AllocateNode::Make(a->buffer, *body);
      }
      // Per-thread (or per-warp) storage that lives across a barrier: one copy per thread.
      std::optional<int64_t> size = AllocationElements(*a->buffer);
      if (!size) return Unsupported(absl::StrCat("the size of '", a->buffer->name, "'"));
      ir::Buffer copies = ir::MakeBuffer(a->buffer->name + ".threads", a->buffer->dtype,
                                         {Expr(static_cast<int>(*size * Threads()))}, "local");
      Stmt body = Replicate(a->buffer.get(), copies, LinearTid() * Expr(static_cast<int>(*size)))
                      .Mutate(a->body);
      auto fissioned = Fission(body);
      if (!fissioned.ok()) return fissioned.status();
      return ir::AllocateNode::Make(copies, *fissioned);
    }
    if (const auto* l = s.as<ir::LetStmtNode>()) {
      if (UsesThread(l->value)) return Unsupported(absl::StrCat("let '", l->var.name(), "'"));
      auto body = Fission(l->body);
      if (!body.ok()) return body.status();
      return ir::LetStmtNode::Make(l->var, l->value, *body);
    }
    return Unsupported("a statement holding a barrier");
  }

  std::map<std::string, ir::Var> tid_;
  std::map<std::string, int64_t> extent_;
};

}  // namespace

absl::StatusOr<LoweredFunc> EmulateGpuKernel(const LoweredFunc& f) {
  Emulator emulator(f.body);
  auto body = emulator.Kernel(f.body);
  if (!body.ok()) return body.status();
  LoweredFunc out = f;
  out.body = *body;
  return out;
}

}  // namespace tunefarm::lower
