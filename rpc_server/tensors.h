// Host tensors for a kernel call: allocation, seeded input fill, poisoned outputs and the
// per-dtype comparison against reference outputs.
#ifndef TUNEFARM_RPC_SERVER_TENSORS_H_
#define TUNEFARM_RPC_SERVER_TENSORS_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/measure.pb.h"

namespace tunefarm {

// The arguments of one kernel call in host memory (kDLCPU), 64-byte aligned, compact.
class HostTensors {
 public:
  // Allocates every tensor of `args`. Errors: InvalidArgument (unsupported dtype, no shape
  // data), ResourceExhausted (more than `max_bytes` in total, or allocation failed).
  static absl::StatusOr<std::unique_ptr<HostTensors>> Allocate(
      const google::protobuf::RepeatedPtrField<v1::TensorArg>& args, int64_t max_bytes);
  ~HostTensors();

  // Fills inputs deterministically from `seed` (floats uniform in [-1, 1), integers small).
  void FillInputs(uint64_t seed);
  // Fills outputs with a poison pattern (NaN for floats, 0xCD bytes for integers) so a kernel
  // that skips writes fails the check.
  void PoisonOutputs();

  // Pointers in ABI order, for the kernel call.
  DLTensor* const* args() const { return pointers_.data(); }
  int32_t num_args() const { return static_cast<int32_t>(pointers_.size()); }

  // Host memory, size in bytes and role of argument `i` (0 <= i < num_args()), for copies to
  // and from device memory.
  void* data(int i) const { return tensors_[i].dl.data; }
  size_t bytes(int i) const { return tensors_[i].bytes; }
  bool is_output(int i) const { return tensors_[i].is_output; }

  // Copies of every output's bytes.
  std::vector<std::string> CopyOutputs() const;

  // Compares outputs with `expected` (same layout) with per-dtype tolerance: |got - want| <=
  // atol + rtol * |want| with 1e-3 for float32/float64 and 1e-2 for float16; integers exact.
  // Returns "" when equal, else a message naming the first mismatch.
  std::string CompareOutputs(const std::vector<std::string>& expected) const;

  // Checksum mode: compares the sum of each output with `sums` (tolerance 1e-3 relative plus
  // 1e-4 per element). Returns "" when equal, else a message.
  std::string CompareSums(const google::protobuf::RepeatedField<double>& sums) const;

 private:
  struct Tensor {
    DLTensor dl;
    std::vector<int64_t> shape;
    size_t bytes = 0;
    int64_t elements = 0;
    bool is_output = false;
  };
  HostTensors() = default;
  std::vector<Tensor> tensors_;
  std::vector<DLTensor*> pointers_;
};

// DLPack dtype of a proto dtype. Errors: InvalidArgument (unspecified).
absl::StatusOr<DLDataType> ToDlDtype(v1::DType dtype);

// IEEE half <-> float conversions (round to nearest even).
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_TENSORS_H_
