#include "compiler/schedule/schedule.h"

#include <algorithm>
#include <set>

#include "absl/base/internal/raw_logging.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::schedule {
namespace {

IterVar NewIterVar(const std::string& name, te::IterVarNode::Kind kind) {
  return std::make_shared<te::IterVarNode>(Var(name), ir::Range{Expr(0), Expr()}, kind);
}

// Replaces loads of one tensor with loads of another at the same indices.
class ReplaceLoads : public ir::IRMutator {
 public:
  ReplaceLoads(const te::OperationNode* from, ir::Buffer to) : from_(from), to_(std::move(to)) {}
  bool replaced = false;

 protected:
  Expr Mutate_(const ir::LoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::LoadNode>();
    if (load->buffer.get() != from_) return e;
    replaced = true;
    return ir::LoadNode::Make(to_, load->indices);
  }

 private:
  const te::OperationNode* from_;
  ir::Buffer to_;
};

// An operation is its own buffer.
ir::Buffer AsBuffer(const std::shared_ptr<const te::OperationNode>& op) { return op; }

bool ValidThreadTag(const std::string& tag) {
  static const std::set<std::string> kTags = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                              "threadIdx.x", "threadIdx.y", "threadIdx.z",
                                              "vthread"};
  return kTags.count(tag) > 0;
}

}  // namespace

Stage::Stage(std::shared_ptr<const te::OperationNode> op, Expr body)
    : op_(std::move(op)), body_(std::move(body)) {
  if (op_->op_kind == te::OperationNode::Kind::kCompute) {
    const auto* c = static_cast<const te::ComputeOpNode*>(op_.get());
    root_axes_ = c->axis;
    reduce_axes_ = c->reduce_axis;
    leaf_ = root_axes_;
    leaf_.insert(leaf_.end(), reduce_axes_.begin(), reduce_axes_.end());
  }
}

IterVar Stage::axis(int i) const {
  return i >= 0 && i < static_cast<int>(root_axes_.size()) ? root_axes_[i] : nullptr;
}

IterVar Stage::reduce_axis(int i) const {
  return i >= 0 && i < static_cast<int>(reduce_axes_.size()) ? reduce_axes_[i] : nullptr;
}

const IterVarAttr& Stage::attr(const IterVar& iv) const {
  static const IterVarAttr kDefault;
  auto it = attrs_.find(iv.get());
  return it == attrs_.end() ? kDefault : it->second;
}

IterVarAttr& Stage::MutableAttr(const IterVar& iv) { return attrs_[iv.get()]; }

int Stage::LeafIndex(const IterVar& iv) const {
  for (size_t i = 0; i < leaf_.size(); ++i) {
    if (leaf_[i] == iv) return static_cast<int>(i);
  }
  return -1;
}

absl::Status Stage::CheckLeaf(const IterVar& iv, const char* primitive) const {
  if (iv == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(primitive, " on stage '", Name(),
                     "': no such iteration variable (an axis index out of range?)"));
  }
  if (is_placeholder()) {
    return absl::InvalidArgumentError(
        absl::StrCat(primitive, ": '", Name(), "' is an input placeholder and has no loops"));
  }
  if (LeafIndex(iv) < 0) {
    std::vector<std::string> names;
    for (const IterVar& l : leaf_) names.push_back(l->name());
    return absl::InvalidArgumentError(
        absl::StrCat(primitive, " on stage '", Name(), "': '", iv->name(),
                     "' is not a current loop of this stage (loops: ", absl::StrJoin(names, ", "),
                     "); it may belong to another stage or have been split or fused already"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::pair<IterVar, IterVar>> Stage::Split(const IterVar& parent, int64_t factor) {
  if (absl::Status s = CheckLeaf(parent, "split"); !s.ok()) return s;
  if (factor < 1) {
    return absl::InvalidArgumentError(absl::StrCat("split of '", parent->name(), "' in '", Name(),
                                                   "': factor ", factor, " must be at least 1"));
  }
  IterVar outer = NewIterVar(parent->name() + ".o", parent->kind);
  IterVar inner = NewIterVar(parent->name() + ".i", parent->kind);
  Relation r{Relation::Kind::kSplit, parent, outer, inner, nullptr, factor, 0};
  relations_.push_back(r);
  int idx = LeafIndex(parent);
  leaf_[idx] = outer;
  leaf_.insert(leaf_.begin() + idx + 1, inner);
  return std::make_pair(outer, inner);
}

absl::StatusOr<std::pair<IterVar, IterVar>> Stage::SplitByNParts(const IterVar& parent,
                                                                 int64_t nparts) {
  if (absl::Status s = CheckLeaf(parent, "split"); !s.ok()) return s;
  if (nparts < 1) {
    return absl::InvalidArgumentError(absl::StrCat("split of '", parent->name(), "' in '", Name(),
                                                   "': nparts ", nparts, " must be at least 1"));
  }
  IterVar outer = NewIterVar(parent->name() + ".o", parent->kind);
  IterVar inner = NewIterVar(parent->name() + ".i", parent->kind);
  relations_.push_back(Relation{Relation::Kind::kSplit, parent, outer, inner, nullptr, 0, nparts});
  int idx = LeafIndex(parent);
  leaf_[idx] = outer;
  leaf_.insert(leaf_.begin() + idx + 1, inner);
  return std::make_pair(outer, inner);
}

absl::StatusOr<std::array<IterVar, 4>> Stage::Tile(const IterVar& x, const IterVar& y,
                                                   int64_t x_factor, int64_t y_factor) {
  if (x == y) {
    return absl::InvalidArgumentError(
        absl::StrCat("tile on '", Name(), "': x and y must be different loops"));
  }
  // Validate everything before splitting so a rejected tile leaves the stage unchanged.
  if (absl::Status s = CheckLeaf(x, "tile"); !s.ok()) return s;
  if (absl::Status s = CheckLeaf(y, "tile"); !s.ok()) return s;
  if (x_factor < 1 || y_factor < 1) {
    return absl::InvalidArgumentError(absl::StrCat("tile on '", Name(), "': factors ", x_factor,
                                                   ", ", y_factor, " must be at least 1"));
  }
  auto xs = Split(x, x_factor);
  if (!xs.ok()) return xs.status();
  auto ys = Split(y, y_factor);
  if (!ys.ok()) return ys.status();
  std::array<IterVar, 4> out = {xs->first, ys->first, xs->second, ys->second};
  if (absl::Status s = Reorder({out[0], out[1], out[2], out[3]}); !s.ok()) return s;
  return out;
}

absl::StatusOr<IterVar> Stage::Fuse(const IterVar& outer, const IterVar& inner) {
  if (absl::Status s = CheckLeaf(outer, "fuse"); !s.ok()) return s;
  if (absl::Status s = CheckLeaf(inner, "fuse"); !s.ok()) return s;
  int io = LeafIndex(outer), ii = LeafIndex(inner);
  if (ii != io + 1) {
    return absl::InvalidArgumentError(absl::StrCat("fuse on '", Name(), "': '", outer->name(),
                                                   "' must be immediately outside '", inner->name(),
                                                   "' (reorder them first)"));
  }
  if (outer->kind != inner->kind) {
    return absl::InvalidArgumentError(absl::StrCat("fuse on '", Name(),
                                                   "': cannot fuse a reduce axis with a "
                                                   "data-parallel axis ('",
                                                   outer->name(), "', '", inner->name(), "')"));
  }
  IterVar fused = NewIterVar(outer->name() + "." + inner->name() + ".f", outer->kind);
  relations_.push_back(Relation{Relation::Kind::kFuse, nullptr, outer, inner, fused, 0, 0});
  leaf_[io] = fused;
  leaf_.erase(leaf_.begin() + ii);
  return fused;
}

absl::Status Stage::Reorder(const std::vector<IterVar>& order) {
  std::vector<int> positions;
  for (const IterVar& iv : order) {
    if (absl::Status s = CheckLeaf(iv, "reorder"); !s.ok()) return s;
    int p = LeafIndex(iv);
    if (std::find(positions.begin(), positions.end(), p) != positions.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("reorder on '", Name(), "': '", iv->name(), "' is listed twice"));
    }
    positions.push_back(p);
  }
  std::vector<int> sorted = positions;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < order.size(); ++i) leaf_[sorted[i]] = order[i];
  return absl::OkStatus();
}

absl::Status Stage::Vectorize(const IterVar& iv) {
  if (absl::Status s = CheckLeaf(iv, "vectorize"); !s.ok()) return s;
  if (iv->kind == te::IterVarNode::Kind::kReduce) {
    return absl::InvalidArgumentError(
        absl::StrCat("vectorize on '", Name(), "': '", iv->name(),
                     "' is a reduce axis; vectorize a data-parallel axis and keep the "
                     "reduction serial"));
  }
  MutableAttr(iv).kind = ir::ForKind::kVectorized;
  return absl::OkStatus();
}

absl::Status Stage::VectorizeReduction(const IterVar& iv) {
  if (absl::Status s = CheckLeaf(iv, "vectorize_reduction"); !s.ok()) return s;
  if (iv->kind != te::IterVarNode::Kind::kReduce) {
    return absl::InvalidArgumentError(absl::StrCat("vectorize_reduction on '", Name(), "': '",
                                                   iv->name(),
                                                   "' is a data-parallel axis; use vectorize"));
  }
  MutableAttr(iv).kind = ir::ForKind::kVectorized;
  return absl::OkStatus();
}

absl::Status Stage::Unroll(const IterVar& iv) {
  if (absl::Status s = CheckLeaf(iv, "unroll"); !s.ok()) return s;
  MutableAttr(iv).kind = ir::ForKind::kUnrolled;
  return absl::OkStatus();
}

absl::Status Stage::Parallel(const IterVar& iv) {
  if (absl::Status s = CheckLeaf(iv, "parallel"); !s.ok()) return s;
  if (iv->kind == te::IterVarNode::Kind::kReduce) {
    return absl::InvalidArgumentError(
        absl::StrCat("parallel on '", Name(), "': '", iv->name(),
                     "' is a reduce axis; parallel iterations would race on the accumulator"));
  }
  MutableAttr(iv).kind = ir::ForKind::kParallel;
  return absl::OkStatus();
}

absl::Status Stage::Bind(const IterVar& iv, const std::string& thread_tag) {
  if (absl::Status s = CheckLeaf(iv, "bind"); !s.ok()) return s;
  if (!ValidThreadTag(thread_tag)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bind on '", Name(), "': unknown thread tag '", thread_tag,
                     "' (expected blockIdx.x|y|z, threadIdx.x|y|z or vthread)"));
  }
  for (const auto& [node, attr] : attrs_) {
    if (attr.thread_tag == thread_tag && node != iv.get()) {
      return absl::InvalidArgumentError(absl::StrCat("bind on '", Name(), "': ", thread_tag,
                                                     " is already bound to another loop"));
    }
  }
  if (iv->kind == te::IterVarNode::Kind::kReduce && thread_tag.rfind("blockIdx", 0) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bind on '", Name(), "': reduce axis '", iv->name(), "' cannot be bound to ", thread_tag));
  }
  IterVarAttr& a = MutableAttr(iv);
  a.kind = ir::ForKind::kThreadBinding;
  a.thread_tag = thread_tag;
  return absl::OkStatus();
}

absl::Status Stage::Pragma(const IterVar& iv, const std::string& key, int64_t value) {
  if (absl::Status s = CheckLeaf(iv, "pragma"); !s.ok()) return s;
  if (key != "auto_unroll_max_step" && key != "unroll_explicit" && key != kPartitionSelectsPragma) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pragma on '", Name(), "': unknown key '", key,
        "' (expected auto_unroll_max_step, unroll_explicit or ", kPartitionSelectsPragma, ")"));
  }
  if (value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("pragma ", key, " on '", Name(), "': value must be >= 0"));
  }
  MutableAttr(iv).pragmas[key] = value;
  return absl::OkStatus();
}

absl::Status Stage::Prefetch(const Tensor& t, const IterVar& iv, int64_t distance_bytes) {
  if (absl::Status s = CheckLeaf(iv, "prefetch"); !s.ok()) return s;
  if (!t.defined()) {
    return absl::InvalidArgumentError(absl::StrCat("prefetch on '", Name(), "': undefined tensor"));
  }
  bool reads = false;
  if (body_.defined()) {
    for (const auto* in : te::InputsOf(body_)) reads = reads || in == t.op();
  }
  if (!reads) {
    return absl::InvalidArgumentError(
        absl::StrCat("prefetch on '", Name(), "': '", t.name(), "' is not read by this stage"));
  }
  if (distance_bytes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("prefetch of '", t.name(), "' on '", Name(),
                                                   "': distance must be >= 1 byte, got ",
                                                   distance_bytes));
  }
  MutableAttr(iv).pragmas[absl::StrCat(kPrefetchPragmaPrefix, t.name())] = distance_bytes;
  return absl::OkStatus();
}

absl::Status Stage::Tensorize(const IterVar& iv, TensorIntrinsic op) {
  if (absl::Status s = CheckLeaf(iv, "tensorize"); !s.ok()) return s;
  MutableAttr(iv).pragmas[kTensorizePragma] = static_cast<int64_t>(op);
  return absl::OkStatus();
}

absl::Status Stage::ComputeAt(const Stage& parent, const IterVar& iv) {
  if (absl::Status s = parent.CheckLeaf(iv, "compute_at"); !s.ok()) return s;
  if (is_placeholder()) {
    return absl::FailedPreconditionError(
        absl::StrCat("compute_at: '", Name(), "' is an input placeholder"));
  }
  if (is_output_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "compute_at: '", Name(), "' is an output of the schedule and must stay at the root"));
  }
  if (&parent == this) {
    return absl::FailedPreconditionError(
        absl::StrCat("compute_at: '", Name(), "' cannot be computed inside itself"));
  }
  // Every reader of this stage must run inside the target's loop `iv`: the target itself, or
  // a stage computed (directly or through others) at `iv` or deeper in the target.
  // An inlined reader is substituted into its own readers: those are the ones that count.
  bool has_reader = false;
  int iv_pos = parent.LeafIndex(iv);
  std::vector<const Stage*> readers = schedule_->ConsumersOf(op());
  for (size_t r = 0; r < readers.size(); ++r) {
    const Stage* c = readers[r];
    if (c->attach_.kind == Attach::Kind::kInline) {
      for (const Stage* cc : schedule_->ConsumersOf(c->op())) readers.push_back(cc);
      continue;
    }
    has_reader = true;
    if (c == &parent) continue;
    const Stage* s = c;
    while (s->attach_.kind == Attach::Kind::kScope && s->attach_.stage != &parent) {
      s = s->attach_.stage;
    }
    if (s->attach_.kind != Attach::Kind::kScope || s->attach_.stage != &parent ||
        parent.LeafIndex(s->attach_.ivar) < iv_pos) {
      return absl::FailedPreconditionError(
          absl::StrCat("compute_at: '", Name(), "' is also read by '", c->op()->name,
                       "', which is not computed inside loop '", iv->name(), "' of '",
                       parent.op()->name, "' (attach the readers first)"));
    }
  }
  if (!has_reader) {
    return absl::FailedPreconditionError(absl::StrCat("compute_at: nothing reads '", Name(), "'"));
  }
  for (const Stage* s = &parent; s != nullptr;
       s = s->attach_.kind == Attach::Kind::kScope ? s->attach_.stage : nullptr) {
    if (s == this) {
      return absl::FailedPreconditionError(absl::StrCat("compute_at: attaching '", Name(), "' to '",
                                                        parent.op()->name, "' forms a cycle"));
    }
  }
  if (parent.attach_.kind == Attach::Kind::kInline) {
    return absl::FailedPreconditionError(
        absl::StrCat("compute_at: target '", parent.op()->name, "' is inlined and has no loops"));
  }
  attach_ = Attach{Attach::Kind::kScope, &parent, iv};
  return absl::OkStatus();
}

absl::Status Stage::ComputeInline() {
  if (is_placeholder()) {
    return absl::FailedPreconditionError(
        absl::StrCat("compute_inline: '", Name(), "' is an input placeholder"));
  }
  if (!reduce_axes_.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("compute_inline: '", Name(), "' is a reduction and cannot be inlined"));
  }
  if (is_output_) {
    return absl::FailedPreconditionError(
        absl::StrCat("compute_inline: '", Name(), "' is an output of the schedule"));
  }
  attach_ = Attach{Attach::Kind::kInline, nullptr, nullptr};
  return absl::OkStatus();
}

absl::Status Stage::ComputeRoot() {
  if (is_placeholder()) {
    return absl::FailedPreconditionError(
        absl::StrCat("compute_root: '", Name(), "' is an input placeholder"));
  }
  attach_ = Attach{};
  return absl::OkStatus();
}

absl::Status Stage::SetStorageAlign(int axis, int64_t factor, int64_t offset) {
  if (axis < 0 || axis + 1 >= static_cast<int>(op_->shape.size())) {
    return absl::InvalidArgumentError(absl::StrCat("storage_align on '", Name(), "': axis ", axis,
                                                   " must name a dimension that has an "
                                                   "inner dimension (0..",
                                                   static_cast<int>(op_->shape.size()) - 2, ")"));
  }
  if (factor < 1 || offset < 0 || offset >= factor) {
    return absl::InvalidArgumentError(absl::StrCat("storage_align on '", Name(),
                                                   "': need factor >= 1 and 0 <= offset < "
                                                   "factor, got factor ",
                                                   factor, " offset ", offset));
  }
  aligns_.push_back(StorageAlign{axis, factor, offset});
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<Schedule>> Schedule::Create(const std::vector<Tensor>& outputs) {
  if (outputs.empty()) return absl::InvalidArgumentError("schedule: no output tensors");
  std::unique_ptr<Schedule> s(new Schedule());
  s->outputs_ = outputs;
  // Post-order walk from the outputs: producers before consumers.
  std::vector<std::shared_ptr<const te::OperationNode>> order;
  std::set<const te::OperationNode*> seen;
  std::vector<std::pair<std::shared_ptr<const te::OperationNode>, bool>> work;
  for (auto it = outputs.rbegin(); it != outputs.rend(); ++it) {
    if (!it->defined()) return absl::InvalidArgumentError("schedule: undefined output tensor");
    if (it->compute() == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "schedule: output '", it->name(), "' is an input placeholder, not a computation"));
    }
    work.emplace_back(it->op_ptr(), false);
  }
  while (!work.empty()) {
    auto [op, expanded] = work.back();
    work.pop_back();
    if (expanded) {
      if (seen.insert(op.get()).second) order.push_back(op);
      continue;
    }
    if (seen.count(op.get())) continue;
    work.emplace_back(op, true);
    if (op->op_kind == te::OperationNode::Kind::kCompute) {
      const auto* c = static_cast<const te::ComputeOpNode*>(op.get());
      std::vector<const te::OperationNode*> inputs = te::InputsOf(c->body);
      for (auto in = inputs.rbegin(); in != inputs.rend(); ++in) {
        // Recover the owning pointer through a load of the input inside the body.
        class Finder : public ir::IRVisitor {
         public:
          const te::OperationNode* want;
          std::shared_ptr<const te::OperationNode> found;
          void Visit_(const ir::LoadNode* l) override {
            if (l->buffer.get() == want && found == nullptr) {
              found = std::shared_ptr<const te::OperationNode>(l->buffer, want);
            }
            IRVisitor::Visit_(l);
          }
        } finder;
        finder.want = *in;
        finder.Visit(c->body);
        if (!seen.count(*in)) work.emplace_back(finder.found, false);
      }
    }
  }
  for (const auto& op : order) {
    Expr body;
    if (op->op_kind == te::OperationNode::Kind::kCompute) {
      body = static_cast<const te::ComputeOpNode*>(op.get())->body;
    }
    auto stage = std::make_unique<Stage>(op, body);
    for (const Tensor& t : outputs) stage->is_output_ |= t.op() == op.get();
    stage->schedule_ = s.get();
    s->stages_.push_back(std::move(stage));
  }
  return s;
}

absl::StatusOr<Stage*> Schedule::StageOf(const Tensor& t) {
  Stage* s = t.defined() ? FindMutable(t.op()) : nullptr;
  if (s == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor '", t.defined() ? t.name() : "(undefined)", "' is not part of this schedule"));
  }
  return s;
}

Stage& Schedule::operator[](const Tensor& t) {
  Stage* s = FindMutable(t.op());
  ABSL_RAW_CHECK(s != nullptr, "tensor is not part of this schedule");
  return *s;
}

const Stage* Schedule::Find(const te::OperationNode* op) const {
  for (const auto& s : stages_) {
    if (s->op() == op) return s.get();
  }
  return nullptr;
}

Stage* Schedule::FindMutable(const te::OperationNode* op) {
  for (auto& s : stages_) {
    if (s->op() == op) return s.get();
  }
  return nullptr;
}

size_t Schedule::IndexOf(const te::OperationNode* op) const {
  for (size_t i = 0; i < stages_.size(); ++i) {
    if (stages_[i]->op() == op) return i;
  }
  return stages_.size();
}

void Schedule::AddStage(std::unique_ptr<Stage> stage, size_t position) {
  stage->schedule_ = this;
  stages_.insert(stages_.begin() + position, std::move(stage));
}

std::vector<const Stage*> Schedule::ConsumersOf(const te::OperationNode* op) const {
  std::vector<const Stage*> out;
  for (const auto& s : stages_) {
    if (!s->body().defined()) continue;
    for (const auto* in : te::InputsOf(s->body())) {
      if (in == op) {
        out.push_back(s.get());
        break;
      }
    }
  }
  return out;
}

absl::StatusOr<Tensor> Schedule::CacheWrite(const Tensor& t, const std::string& scope) {
  Stage* stage = FindMutable(t.op());
  if (stage == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cache_write: '", t.name(), "' is not part of this schedule"));
  }
  if (stage->is_placeholder()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cache_write: '", t.name(), "' is an input placeholder"));
  }
  if (!stage->relations_.empty() || !stage->attrs_.empty() ||
      stage->attach_.kind != Attach::Kind::kRoot) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cache_write: call it on '", t.name(), "' before splitting, annotating or attaching"));
  }
  // The cache stage takes the body, with fresh data-parallel axes; t becomes a copy.
  std::vector<te::IterVar> axes;
  ir::VarMap vmap;
  for (const te::IterVar& iv : stage->root_axes_) {
    auto fresh = std::make_shared<te::IterVarNode>(Var(iv->name() + ".c"), iv->dom,
                                                   te::IterVarNode::Kind::kDataPar);
    vmap[iv->var.get()] = fresh->var;
    axes.push_back(fresh);
  }
  Expr body = ir::Substitute(stage->body_, vmap);
  auto cache_op = std::make_shared<te::ComputeOpNode>(t.name() + "." + scope, t.dtype(), t.shape(),
                                                      axes, stage->reduce_axes_, body);
  std::vector<Expr> idx;
  for (const te::IterVar& iv : stage->root_axes_) idx.push_back(iv->var);
  stage->body_ = ir::LoadNode::Make(AsBuffer(cache_op), idx);
  stage->reduce_axes_.clear();
  stage->leaf_ = stage->root_axes_;

  auto cache_stage = std::make_unique<Stage>(cache_op, body);
  cache_stage->scope_ = scope;
  AddStage(std::move(cache_stage), IndexOf(t.op()));
  return Tensor(cache_op);
}

absl::StatusOr<Tensor> Schedule::CacheRead(const Tensor& t, const std::string& scope,
                                           const std::vector<Tensor>& readers) {
  if (Find(t.op()) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cache_read: '", t.name(), "' is not part of this schedule"));
  }
  if (readers.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cache_read of '", t.name(), "': no readers given"));
  }
  absl::StatusOr<te::Tensor> copy_or = te::Compute(
      t.shape(),
      [&](const std::vector<Var>& i) { return t(std::vector<Expr>(i.begin(), i.end())); },
      t.name() + "." + scope);
  if (!copy_or.ok()) return copy_or.status();
  const te::Tensor copy = *std::move(copy_or);
  for (const Tensor& r : readers) {
    Stage* rs = FindMutable(r.op());
    if (rs == nullptr || !rs->body_.defined()) {
      return absl::InvalidArgumentError(absl::StrCat("cache_read of '", t.name(), "': reader '",
                                                     r.name(), "' is not a compute stage here"));
    }
    ReplaceLoads rewrite(t.op(), AsBuffer(copy.op_ptr()));
    Expr nb = rewrite.Mutate(rs->body_);
    if (!rewrite.replaced) {
      return absl::InvalidArgumentError(
          absl::StrCat("cache_read of '", t.name(), "': '", r.name(), "' does not read it"));
    }
    rs->body_ = nb;
  }
  auto stage = std::make_unique<Stage>(copy.op_ptr(), copy.compute()->body);
  stage->scope_ = scope;
  AddStage(std::move(stage), IndexOf(t.op()) + 1);
  return copy;
}

}  // namespace tunefarm::schedule
