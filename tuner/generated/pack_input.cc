#include "tuner/generated/pack_input.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"
#include "tuner/generated/rebuild_program.h"
#include "tuner/generated/sketch.h"

namespace tunefarm::tuner {
namespace {

using ir::Expr;
using te::Tensor;

Expr I32(int64_t v) { return Expr(static_cast<int>(v)); }

// Finds a load of a placeholder whose index at a non-last dimension is exactly `axis`.
class CandidateFinder : public ir::IRVisitor {
 public:
  explicit CandidateFinder(const ir::VarNode* axis) : axis_(axis) {}
  std::optional<PackCandidate> found;

 protected:
  void Visit_(const ir::LoadNode* op) override {
    auto t = std::dynamic_pointer_cast<const te::OperationNode>(op->buffer);
    if (!found.has_value() && t != nullptr && t->op_kind == te::OperationNode::Kind::kPlaceholder) {
      for (size_t d = 0; d + 1 < op->indices.size(); ++d) {
        if (op->indices[d].as<ir::VarNode>() == axis_) {
          found = PackCandidate{Tensor(t), static_cast<int>(d)};
          break;
        }
      }
    }
    IRVisitor::Visit_(op);
  }

 private:
  const ir::VarNode* axis_;
};

// Rewrites the loads of the input to loads of its packed copy.
class PackedLoads : public ir::IRMutator {
 public:
  PackedLoads(const te::OperationNode* input, const Tensor* packed, int dim, int64_t block)
      : input_(input), packed_(packed), dim_(dim), block_(block) {}

 protected:
  Expr Mutate_(const ir::LoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::LoadNode>();
    if (te::AsOperation(load->buffer) != input_) return e;
    std::vector<Expr> idx;
    idx.push_back(ir::floordiv(load->indices[dim_], I32(block_)));
    for (size_t d = 0; d < load->indices.size(); ++d) {
      if (static_cast<int>(d) != dim_) idx.push_back(load->indices[d]);
    }
    idx.push_back(ir::floormod(load->indices[dim_], I32(block_)));
    return (*packed_)(std::move(idx));
  }

 private:
  const te::OperationNode* input_;
  const Tensor* packed_;
  int dim_;
  int64_t block_;
};

}  // namespace

std::optional<PackCandidate> FindPackCandidate(const te::Tensor& reduction) {
  const te::ComputeOpNode* c = reduction.compute();
  if (c == nullptr || c->reduce_axis.empty() || c->axis.empty()) return std::nullopt;
  CandidateFinder finder(c->axis.back()->var.as<ir::VarNode>());
  finder.Visit(c->body);
  return finder.found;
}

absl::StatusOr<std::vector<te::Tensor>> PackInput(const std::vector<te::Tensor>& args,
                                                  const te::Tensor& reduction,
                                                  const te::Tensor& input, int dim, int64_t block) {
  if (block < 1 || dim < 0 || dim >= static_cast<int>(input.ndim())) {
    return absl::InvalidArgumentError(
        absl::StrCat("pack ", input.name(), ": bad dimension ", dim, " or block ", block));
  }
  std::vector<int64_t> extents;
  for (const Expr& e : input.shape()) extents.push_back(*ir::AsConstInt(e));
  const int64_t extent = extents[dim];
  std::vector<Expr> shape = {I32((extent + block - 1) / block)};
  for (size_t d = 0; d < extents.size(); ++d) {
    if (static_cast<int>(d) != dim) shape.push_back(I32(extents[d]));
  }
  shape.push_back(I32(block));
  absl::StatusOr<Tensor> packed = te::Compute(
      shape,
      [&](const std::vector<ir::Var>& v) -> Expr {
        std::vector<Expr> idx;
        size_t next = 1;
        Expr row = v[0] * I32(block) + v.back();
        for (size_t d = 0; d < extents.size(); ++d) {
          idx.push_back(static_cast<int>(d) == dim ? row : Expr(v[next++]));
        }
        Expr value = input(idx);
        if (extent % block == 0) return value;
        return ir::select(row < I32(extent), value, ir::MakeConst(input.dtype(), 0));
      },
      absl::StrCat(input.name(), "_packed"));
  if (!packed.ok()) return packed.status();

  bool reads_input = false;
  auto rewrite = [&](const Tensor& stage, const Expr& body) {
    if (stage != reduction) return body;
    PackedLoads packed_loads(input.op(), &*packed, dim, block);
    Expr out = packed_loads.Mutate(body);
    reads_input = !out.same_as(body);
    return out;
  };
  absl::StatusOr<std::vector<Tensor>> out = RebuildProgram(args, {}, rewrite);
  if (!out.ok()) return out.status();
  if (!reads_input) {
    return absl::InvalidArgumentError(
        absl::StrCat("pack: ", reduction.name(), " does not read ", input.name()));
  }
  return out;
}

absl::StatusOr<AheadPack> PackInputAhead(const std::vector<te::Tensor>& args,
                                         const te::Tensor& reduction, const te::Tensor& input,
                                         int dim, int64_t block) {
  const auto at = std::find(args.begin(), args.end() - 1, input);
  if (at == args.end() - 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("pack ahead: ", input.name(), " is not an input of the kernel"));
  }
  absl::StatusOr<std::vector<Tensor>> in_kernel = PackInput(args, reduction, input, dim, block);
  if (!in_kernel.ok()) return in_kernel.status();
  const std::string name = absl::StrCat(input.name(), "_packed");
  Tensor packed;
  for (const Tensor& t : ComputeStages(in_kernel->back())) {
    if (t.name() == name) packed = t;
  }
  if (!packed.defined()) return absl::InternalError("pack ahead: no packed stage");
  Tensor placeholder = te::Placeholder(packed.shape(), packed.dtype(), name);
  absl::StatusOr<std::vector<Tensor>> program =
      RebuildProgram(*in_kernel, {{packed.op(), placeholder}});
  if (!program.ok()) return program.status();
  for (const Tensor& t : ComputeStages(program->back())) {
    if (absl::c_linear_search(TensorsRead(t.compute()->body), input)) {
      return absl::InvalidArgumentError(absl::StrCat("pack ahead: ", t.name(), " reads ",
                                                     input.name(), " unpacked; pack it per call"));
    }
  }
  AheadPack out;
  out.arg_index = static_cast<int>(at - args.begin());
  out.program = *std::move(program);
  out.program[out.arg_index] = placeholder;
  out.pack = {input, packed};
  return out;
}

}  // namespace tunefarm::tuner
