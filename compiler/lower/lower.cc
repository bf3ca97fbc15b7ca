#include "compiler/lower/lower.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/lower/fold_table_loads.h"
#include "compiler/lower/infer_bound.h"
#include "compiler/lower/inject_prefetch.h"
#include "compiler/lower/inline_stages.h"
#include "compiler/lower/insert_barriers.h"
#include "compiler/lower/loop_partition.h"
#include "compiler/lower/schedule_ops.h"
#include "compiler/lower/simplify.h"
#include "compiler/lower/storage_flatten.h"
#include "compiler/lower/unroll_loops.h"
#include "compiler/lower/validate_loops.h"
#include "compiler/lower/vectorize_loops.h"

namespace tunefarm::lower {
namespace {

bool IsCIdentifier(const std::string& s) {
  if (s.empty() || absl::ascii_isdigit(s[0])) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

absl::Status CheckArgs(const schedule::Schedule& sch, const std::vector<te::Tensor>& args) {
  std::set<const te::OperationNode*> seen;
  for (const te::Tensor& t : args) {
    if (!t.defined()) return absl::InvalidArgumentError("lower: undefined tensor in args");
    if (!seen.insert(t.op()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("lower: tensor '", t.name(), "' appears twice in args"));
    }
    if (sch.Find(t.op()) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("lower: argument '", t.name(), "' is not part of the schedule"));
    }
  }
  for (const te::Tensor& out : sch.outputs()) {
    if (!seen.count(out.op())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "lower: output '", out.name(), "' must be passed as an argument (after the inputs)"));
    }
  }
  for (const auto& stage : sch.stages()) {
    if (stage->is_placeholder() && !seen.count(stage->op())) {
      return absl::InvalidArgumentError(absl::StrCat("lower: input '", stage->op()->name,
                                                     "' is read but not passed as an argument"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LoweredFunc> Lower(const schedule::Schedule& sch,
                                  const std::vector<te::Tensor>& args, const std::string& name,
                                  const LowerOptions& options) {
  if (!IsCIdentifier(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("lower: kernel name '", name, "' is not a C identifier"));
  }
  if (absl::Status s = CheckArgs(sch, args); !s.ok()) return s;
  ir::VarMap bindings;
  for (const auto& [var, value] : options.bindings) {
    bindings[var] = ir::IntImmNode::Make(ir::DataType::Int(32), value);
  }
  LoweredFunc func;
  func.name = name;
  for (const te::Tensor& t : args) {
    FuncArg arg{ir::Buffer(t.op_ptr()), {}};
    for (size_t d = 0; d < t.ndim(); ++d) {
      auto ext = te::ConstExtent(ir::Substitute(t.shape()[d], bindings),
                                 absl::StrCat("dimension ", d, " of argument '", t.name(), "'"));
      if (!ext.ok()) return ext.status();
      arg.shape.push_back(*ext);
    }
    func.args.push_back(std::move(arg));
  }

  auto dump = [&](const char* pass, const ir::Stmt& s) {
    if (options.dump_to != nullptr) *options.dump_to << "// after " << pass << "\n" << s << "\n";
  };

  Bodies bodies = InlineStages(sch);
  auto domains = InferBound(sch, bodies, bindings);
  if (!domains.ok()) return domains.status();
  auto nest = ScheduleOps(sch, bodies, *domains, args, bindings);
  if (!nest.ok()) return nest.status();
  ir::Stmt s = ir::Substitute(*nest, bindings);
  dump("schedule_ops", s);
  if (absl::Status v = ValidateLoops(s); !v.ok()) return v;
  s = Simplify(s);
  dump("simplify", s);
  if (options.partition_loops) {
    s = Simplify(LoopPartition(s));
    dump("loop_partition", s);
  }
  s = Simplify(StorageFlatten(s, bindings));
  dump("storage_flatten", s);
  s = InsertBarriers(s);
  dump("insert_barriers", s);
  s = VectorizeLoops(s);
  dump("vectorize_loops", s);
  s = InjectPrefetch(s);
  dump("inject_prefetch", s);
  s = UnrollLoops(s, options.auto_unroll_max_step);
  dump("unroll_loops", s);
  s = FoldTableLoads(s, bindings);
  dump("fold_table_loads", s);
  s = Simplify(s);
  dump("simplify", s);
  func.body = s;
  return func;
}

}  // namespace tunefarm::lower
