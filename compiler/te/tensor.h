// Tensor expressions: placeholders and computations defined elementwise over index variables,
// in the manner of TVM's `te` and Halide's Funcs.
//
//   Var n("n");                                    // shapes may be symbolic
//   Tensor A = Placeholder({n, 64}, DataType::Float(32), "A");
//   IterVar k = ReduceAxis(64, "k");
//   absl::StatusOr<Tensor> B = Compute({n}, [&](const std::vector<Var>& i) {
//     return Sum(A(i[0], k) * 2, {k}); }, "B");
//
// An operation is also the buffer it writes (ir::BufferNode), so a load of a tensor inside a
// body names its producer directly.
#ifndef TUNEFARM_COMPILER_TE_TENSOR_H_
#define TUNEFARM_COMPILER_TE_TENSOR_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace tunefarm::te {

using ir::DataType;
using ir::Expr;
using ir::Var;

// An iteration variable with its domain: a data-parallel axis of a compute or a reduce axis.
struct IterVarNode {
  enum class Kind { kDataPar, kReduce };
  IterVarNode(Var v, ir::Range d, Kind k) : var(std::move(v)), dom(std::move(d)), kind(k) {}
  const Var var;
  const ir::Range dom;
  const Kind kind;
  const std::string& name() const { return var.name(); }
};
using IterVar = std::shared_ptr<const IterVarNode>;

// A reduction axis over [0, extent).
IterVar ReduceAxis(Expr extent, const std::string& name);
// A reduction axis over [min, min + extent).
IterVar ReduceAxis(ir::Range dom, const std::string& name);

// What produces a tensor. Also the tensor's storage.
struct OperationNode : ir::BufferNode {
  enum class Kind { kPlaceholder, kCompute };
  OperationNode(Kind k, std::string name, DataType dtype, std::vector<Expr> shape)
      : ir::BufferNode(std::move(name), dtype, std::move(shape), "global"), op_kind(k) {}
  const Kind op_kind;
};

// An input tensor supplied by the caller.
struct PlaceholderOpNode : OperationNode {
  PlaceholderOpNode(std::string name, DataType dtype, std::vector<Expr> shape)
      : OperationNode(Kind::kPlaceholder, std::move(name), dtype, std::move(shape)) {}
};

// out[axis...] = body, where body may be a single ir::Reduce over reduce_axis.
struct ComputeOpNode : OperationNode {
  ComputeOpNode(std::string name, DataType dtype, std::vector<Expr> shape, std::vector<IterVar> ax,
                std::vector<IterVar> rax, Expr b)
      : OperationNode(Kind::kCompute, std::move(name), dtype, std::move(shape)),
        axis(std::move(ax)),
        reduce_axis(std::move(rax)),
        body(std::move(b)) {}
  const std::vector<IterVar> axis;
  const std::vector<IterVar> reduce_axis;
  const Expr body;
};

// A handle to the output of an operation.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<const OperationNode> op) : op_(std::move(op)) {}

  bool defined() const { return op_ != nullptr; }
  const OperationNode* op() const { return op_.get(); }
  const std::shared_ptr<const OperationNode>& op_ptr() const { return op_; }
  // The compute node, or null for a placeholder.
  const ComputeOpNode* compute() const;
  const std::string& name() const { return op_->name; }
  DataType dtype() const { return op_->dtype; }
  const std::vector<Expr>& shape() const { return op_->shape; }
  size_t ndim() const { return op_->shape.size(); }

  // The element at `indices` (one per dimension), as an expression for use in bodies.
  Expr operator()(std::vector<Expr> indices) const;
  template <typename... Args>
  Expr operator()(Expr first, Args... rest) const {
    return (*this)(std::vector<Expr>{first, Expr(rest)...});
  }

  bool operator==(const Tensor& o) const { return op_ == o.op_; }
  bool operator!=(const Tensor& o) const { return op_ != o.op_; }

 private:
  std::shared_ptr<const OperationNode> op_;
};

// The tensor an ir::Buffer belongs to, if the buffer is an operation's output.
const OperationNode* AsOperation(const ir::Buffer& buffer);

// The operation writing `buffer` when it is a table: computed from its indices alone, with no
// reduction and no tensor read (a constant(...) of the language); null otherwise.
const ComputeOpNode* AsTable(const ir::Buffer& buffer);

// An input tensor.
Tensor Placeholder(std::vector<Expr> shape, DataType dtype, const std::string& name);

// A tensor of `shape` whose element at i is fcompute(i); the result dtype is the body's.
// The definition is validated: positive constant extents, a reduction only at the top of the
// body, reduce axes not shared with loads of non-matching rank, loads with one index per
// dimension, a scalar body. InvalidArgument with a message naming the problem otherwise.
// There is no aborting variant: definitions are built in the job service's process from user
// input (templates' shapes, programs), so a bad one fails its job, never the service.
// `axis_names` names the axes' variables (default i, j, k, ...); when given, it has one name
// per dimension.
using FCompute = std::function<Expr(const std::vector<Var>&)>;
absl::StatusOr<Tensor> Compute(std::vector<Expr> shape, const FCompute& fcompute,
                               const std::string& name,
                               const std::vector<std::string>& axis_names = {});

// Reductions; identities are 0 for Sum, lowest for Max, highest for Min.
Expr Sum(Expr source, const std::vector<IterVar>& axes);
Expr Max(Expr source, const std::vector<IterVar>& axes);
Expr Min(Expr source, const std::vector<IterVar>& axes);

// The distinct tensors read by a compute body, in first-use order.
std::vector<const OperationNode*> InputsOf(const Expr& body);

// The extent of `e` as a constant, after binding symbolic shape variables.
// InvalidArgument when it is not constant or not positive.
absl::StatusOr<int64_t> ConstExtent(const Expr& e, const std::string& what);

}  // namespace tunefarm::te

#endif  // TUNEFARM_COMPILER_TE_TENSOR_H_
