#include "compiler/lower/validate_loops.h"

#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::lower {
namespace {

class Validator : public ir::IRVisitor {
 public:
  absl::Status status;

 protected:
  void Visit_(const ir::ForNode* op) override {
    if (!status.ok()) return;
    if (op->for_kind == ir::ForKind::kParallel) {
      if (parallel_depth_ > 0) {
        status = absl::FailedPreconditionError(
            absl::StrCat("parallel loop '", op->var.name(),
                         "' is nested inside another parallel loop; "
                         "mark only one level parallel (fuse the loops to get more parallelism)"));
        return;
      }
      ++parallel_depth_;
      IRVisitor::Visit_(op);
      --parallel_depth_;
      return;
    }
    IRVisitor::Visit_(op);
  }

 private:
  int parallel_depth_ = 0;
};

}  // namespace

absl::Status ValidateLoops(const ir::Stmt& s) {
  Validator v;
  v.Visit(s);
  return v.status;
}

}  // namespace tunefarm::lower
