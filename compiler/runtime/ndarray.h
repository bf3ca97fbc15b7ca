// A host tensor that owns 64-byte aligned memory and exposes it as a DLTensor, for calling
// kernels through their C ABI in tests, benchmarks and the tuner's local checks.
#ifndef TUNEFARM_COMPILER_RUNTIME_NDARRAY_H_
#define TUNEFARM_COMPILER_RUNTIME_NDARRAY_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/abi/kernel_abi.h"
#include "compiler/ir/type.h"

namespace tunefarm::runtime {

class NDArray {
 public:
  // InvalidArgument: a non-positive dimension or an unsupported dtype.
  static absl::StatusOr<NDArray> Empty(std::vector<int64_t> shape, ir::DataType dtype);

  NDArray(NDArray&&) = default;
  NDArray& operator=(NDArray&&) = default;

  DLTensor* dl() { return &tensor_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  ir::DataType dtype() const { return dtype_; }
  int64_t size() const;  // Elements.
  int64_t bytes() const { return size() * dtype_.bytes(); }
  void* raw() { return storage_.get(); }
  template <typename T>
  T* data() {
    return static_cast<T*>(raw());
  }
  // Element i converted to double (any dtype).
  double Get(int64_t i) const;
  // Stores v converted to the dtype; into an integer dtype rounded toward zero and clamped to
  // its range, NaN as its minimum (0 for unsigned types).
  void Set(int64_t i, double v);

  // Deterministic pseudo-random values in [lo, hi) from `seed` (integers round down).
  void FillRandom(uint64_t seed, double lo = -1.0, double hi = 1.0);
  void Fill(double v);

 private:
  NDArray() = default;
  std::vector<int64_t> shape_;
  ir::DataType dtype_;
  std::unique_ptr<uint8_t[], void (*)(uint8_t*)> storage_{nullptr, nullptr};
  DLTensor tensor_{};
};

// The largest |a - b| / (atol + rtol * |b|) over all elements (≤ 1 means "close").
double MaxRelError(const NDArray& a, const NDArray& b, double rtol, double atol);

// Calls `fn` with the arrays as its arguments. Internal with the kernel's error code otherwise.
absl::Status Call(TfKernelFn fn, std::vector<NDArray*> args);

}  // namespace tunefarm::runtime

#endif  // TUNEFARM_COMPILER_RUNTIME_NDARRAY_H_
