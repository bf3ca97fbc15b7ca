#include "compiler/te/tensor.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::te {
namespace {

Expr MakeReduce(ir::ReduceOp op, Expr source, const std::vector<IterVar>& axes) {
  std::vector<Var> vars;
  std::vector<ir::Range> ranges;
  for (const IterVar& iv : axes) {
    vars.push_back(iv->var);
    ranges.push_back(iv->dom);
  }
  return ir::ReduceNode::Make(op, std::move(source), std::move(vars), std::move(ranges));
}

// Collects loads and checks where reductions appear.
class BodyChecker : public ir::IRVisitor {
 public:
  std::vector<const OperationNode*> inputs;
  std::string error;
  int reduce_depth = 0;
  int reduce_count = 0;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    if (const OperationNode* producer = AsOperation(op->buffer)) {
      bool seen = false;
      for (const auto* p : inputs) seen |= p == producer;
      if (!seen) inputs.push_back(producer);
    }
    if (error.empty() && op->indices.size() != op->buffer->shape.size()) {
      error = absl::StrCat("tensor '", op->buffer->name, "' has ", op->buffer->shape.size(),
                           " dimensions but is indexed with ", op->indices.size());
    }
    IRVisitor::Visit_(op);
  }
  void Visit_(const ir::ReduceNode* op) override {
    ++reduce_count;
    if (reduce_depth > 0 && error.empty()) error = "nested reductions are not supported";
    ++reduce_depth;
    IRVisitor::Visit_(op);
    --reduce_depth;
  }
};

}  // namespace

IterVar ReduceAxis(Expr extent, const std::string& name) {
  return ReduceAxis(ir::Range{Expr(0), std::move(extent)}, name);
}

IterVar ReduceAxis(ir::Range dom, const std::string& name) {
  return std::make_shared<IterVarNode>(Var(name), std::move(dom), IterVarNode::Kind::kReduce);
}

const ComputeOpNode* Tensor::compute() const {
  if (op_ == nullptr || op_->op_kind != OperationNode::Kind::kCompute) return nullptr;
  return static_cast<const ComputeOpNode*>(op_.get());
}

Expr Tensor::operator()(std::vector<Expr> indices) const {
  // The operation is its own buffer.
  return ir::LoadNode::Make(ir::Buffer(op_), std::move(indices));
}

const OperationNode* AsOperation(const ir::Buffer& buffer) {
  return dynamic_cast<const OperationNode*>(buffer.get());
}

const ComputeOpNode* AsTable(const ir::Buffer& buffer) {
  const auto* c = dynamic_cast<const ComputeOpNode*>(buffer.get());
  if (c == nullptr || !c->reduce_axis.empty() || !InputsOf(c->body).empty()) return nullptr;
  return c;
}

Tensor Placeholder(std::vector<Expr> shape, DataType dtype, const std::string& name) {
  return Tensor(std::make_shared<PlaceholderOpNode>(name, dtype, std::move(shape)));
}

absl::StatusOr<Tensor> Compute(std::vector<Expr> shape, const FCompute& fcompute,
                               const std::string& name,
                               const std::vector<std::string>& axis_names) {
  if (shape.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("compute '", name, "': a tensor needs at least one dimension"));
  }
  if (!axis_names.empty() && axis_names.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("compute '", name, "': ", axis_names.size(),
                                                   " axis names for ", shape.size(),
                                                   " dimensions"));
  }
  std::vector<IterVar> axis;
  std::vector<Var> vars;
  static constexpr const char* kAxisNames[] = {"i", "j", "k", "l", "m", "n", "o", "p"};
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t* c = ir::AsConstInt(shape[d]);
    if (c != nullptr && *c <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("compute '", name, "': dimension ", d,
                                                     " has extent ", *c, "; must be positive"));
    }
    Var v(!axis_names.empty() ? axis_names[d] : d < 8 ? kAxisNames[d] : absl::StrCat("ax", d));
    vars.push_back(v);
    axis.push_back(std::make_shared<IterVarNode>(v, ir::Range{Expr(0), shape[d]},
                                                 IterVarNode::Kind::kDataPar));
  }
  Expr body = fcompute(vars);
  if (!body.defined()) {
    return absl::InvalidArgumentError(absl::StrCat("compute '", name, "': empty body"));
  }
  BodyChecker check;
  check.Visit(body);
  if (!check.error.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("compute '", name, "': ", check.error));
  }
  std::vector<IterVar> reduce_axis;
  if (const auto* red = body.as<ir::ReduceNode>()) {
    for (size_t i = 0; i < red->axes.size(); ++i) {
      const int64_t* c = ir::AsConstInt(red->ranges[i].extent);
      if (c != nullptr && *c <= 0) {
        return absl::InvalidArgumentError(absl::StrCat("compute '", name, "': reduce axis '",
                                                       red->axes[i].name(), "' has extent ", *c,
                                                       "; must be positive"));
      }
      reduce_axis.push_back(
          std::make_shared<IterVarNode>(red->axes[i], red->ranges[i], IterVarNode::Kind::kReduce));
    }
  } else if (check.reduce_count > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("compute '", name, "': a reduction must be the whole body (got ",
                     ir::ToString(body), "); compute the reduction as its own tensor first"));
  }
  DataType dtype = body.type();
  if (dtype.is_vector()) {
    return absl::InvalidArgumentError(
        absl::StrCat("compute '", name, "': body must be scalar, got ", dtype.ToString()));
  }
  return Tensor(std::make_shared<ComputeOpNode>(name, dtype, std::move(shape), std::move(axis),
                                                std::move(reduce_axis), std::move(body)));
}

Expr Sum(Expr source, const std::vector<IterVar>& axes) {
  return MakeReduce(ir::ReduceOp::kSum, std::move(source), axes);
}
Expr Max(Expr source, const std::vector<IterVar>& axes) {
  return MakeReduce(ir::ReduceOp::kMax, std::move(source), axes);
}
Expr Min(Expr source, const std::vector<IterVar>& axes) {
  return MakeReduce(ir::ReduceOp::kMin, std::move(source), axes);
}

std::vector<const OperationNode*> InputsOf(const Expr& body) {
  BodyChecker c;
  c.Visit(body);
  return c.inputs;
}

absl::StatusOr<int64_t> ConstExtent(const Expr& e, const std::string& what) {
  const int64_t* c = ir::AsConstInt(e);
  if (c == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(what, " has symbolic extent ", ir::ToString(e),
                                                   "; bind it to a constant before building"));
  }
  if (*c <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " has extent ", *c, "; must be positive"));
  }
  return *c;
}

}  // namespace tunefarm::te
