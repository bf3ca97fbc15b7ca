// Weights packed ahead of time (MeasureRequest.packed_args): the worker fills the operator's
// input from the seed as usual, packs it once with the artifact's pack function (untimed, as a
// deployment packs a layer's parameters once), and calls the kernel with the packed copy in
// the input's place. CPU harness only.
#ifndef TUNEFARM_RPC_SERVER_PACKED_ARGS_H_
#define TUNEFARM_RPC_SERVER_PACKED_ARGS_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "proto/measure.pb.h"
#include "rpc_server/host_reference.h"
#include "rpc_server/tensors.h"

namespace tunefarm {

class PackedArguments {
 public:
  // Packs every weight of `request` from `tensors` (inputs already filled) with the pack
  // functions of `library`. Returns null with `*error` set on failure: INVALID_REQUEST (an
  // index that is not an input, a bad packed shape), OUT_OF_MEMORY (more than `max_bytes`
  // for one packed tensor), LOAD_ERROR (a pack function missing from the artifact),
  // RUNTIME_ERROR / OUT_OF_MEMORY (a pack function's return code).
  static std::unique_ptr<PackedArguments> Pack(const v1::MeasureRequest& request,
                                               const HostTensors& tensors,
                                               const LoadedLibrary& library, int64_t max_bytes,
                                               v1::MeasureResult* error);

  // The kernel's arguments: `tensors`' own, with each packed weight in its input's place.
  DLTensor* const* args() const { return pointers_.data(); }
  int32_t num_args() const { return static_cast<int32_t>(pointers_.size()); }

 private:
  PackedArguments() = default;
  std::vector<std::unique_ptr<HostTensors>> packed_;
  std::vector<DLTensor*> pointers_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_PACKED_ARGS_H_
