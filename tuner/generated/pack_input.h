// Packing an input for the vectorized axis (the generated space's `pack_<input>` knob): when a
// reduction vectorizes over an axis that indexes an outer dimension of an input (j in
// W[j, k] for C = A·Wᵀ), each vector load would gather across rows. The input is read instead
// through a packed copy whose innermost dimension is that axis, in blocks of the vector width:
//
//   W_packed[jo, k, ji] = W[jo * block + ji, k]   (0 past the end of W)
//   C[i, j] = sum(k: A[i, k] * W_packed[j / block, k, j % block])
//
// The copy is computed inside the kernel, once per call, like the dense template's; or, for a
// weight (an input constant across calls), once ahead of time by a program of its own, the
// kernel then taking the packed copy as its argument (PackInputAhead).
#ifndef TUNEFARM_TUNER_GENERATED_PACK_INPUT_H_
#define TUNEFARM_TUNER_GENERATED_PACK_INPUT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/te/tensor.h"

namespace tunefarm::tuner {

// Where packing helps: an input read by `reduction` with its last data-parallel axis as the
// whole index of a dimension that is not the input's last. The first such (input, dimension),
// or nullopt.
struct PackCandidate {
  te::Tensor input;
  int dim = 0;
};
std::optional<PackCandidate> FindPackCandidate(const te::Tensor& reduction);

// The program `args` (inputs, then the output) with `reduction`'s reads of `input` going
// through the packed copy (dimension `dim` split by `block` and moved innermost); every stage
// that reads `reduction`, directly or not, is rebuilt to read the new stages. The packed
// stage is named "<input>_packed". The inputs stay the kernel's arguments.
// InvalidArgument: block < 1, dim out of range, `input` not an input of `reduction`.
absl::StatusOr<std::vector<te::Tensor>> PackInput(const std::vector<te::Tensor>& args,
                                                  const te::Tensor& reduction,
                                                  const te::Tensor& input, int dim, int64_t block);

// PackInput with the copy made ahead of time: `program` reads a new input "<input>_packed" of
// the packed layout, which replaces `input` among the kernel's arguments (at `arg_index`),
// and `pack` computes it: {input, the packed stage}.
// InvalidArgument: PackInput's, `input` not among the inputs of `args`, or still read by
// another stage (then the kernel would need both).
struct AheadPack {
  std::vector<te::Tensor> program;
  std::vector<te::Tensor> pack;
  int arg_index = 0;
};
absl::StatusOr<AheadPack> PackInputAhead(const std::vector<te::Tensor>& args,
                                         const te::Tensor& reduction, const te::Tensor& input,
                                         int dim, int64_t block);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_PACK_INPUT_H_
