// Rewriting a program's stage graph for the generated space (packing an input, splitting a
// reduction): stages are immutable, so a stage whose body changes, and every stage that reads
// it directly or not, is rebuilt with the same name, axes and dtype.
#ifndef TUNEFARM_TUNER_GENERATED_REBUILD_PROGRAM_H_
#define TUNEFARM_TUNER_GENERATED_REBUILD_PROGRAM_H_

#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "compiler/te/tensor.h"

namespace tunefarm::tuner {

// A stage's new body (or the body itself when the stage is unchanged); loads of replaced
// stages are redirected afterwards.
using BodyRewrite = std::function<ir::Expr(const te::Tensor& stage, const ir::Expr& body)>;

// The program `args` (inputs, then the output) with each stage in `replaced` (keyed by the
// old operation) read as its new tensor, and each stage's body passed through `rewrite` (when
// set). Every stage that changes, or reads a stage that changed, is rebuilt. The inputs stay
// the kernel's arguments; the output is the new output when it changed.
// Errors: te::Compute's, for a rewritten body it rejects.
absl::StatusOr<std::vector<te::Tensor>> RebuildProgram(
    const std::vector<te::Tensor>& args,
    absl::flat_hash_map<const te::OperationNode*, te::Tensor> replaced,
    const BodyRewrite& rewrite = {});

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_REBUILD_PROGRAM_H_
