// A std::vector allocator whose storage starts on a 64-byte boundary: what tuned kernels were
// timed with (the farm's tensors are so aligned) and what the exported header asks for
// (TF_KERNEL_ALIGNMENT). glibc's malloc gives large blocks 16-byte alignment, on which AVX-512
// loads split cache lines: a tuned Winograd convolution ran about 8% slower.
//
//   AlignedVector<float> input(n);
#ifndef TUNEFARM_COMMON_ALIGNED_ALLOCATOR_H_
#define TUNEFARM_COMMON_ALIGNED_ALLOCATOR_H_

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace tunefarm {

inline constexpr size_t kTensorAlignment = 64;

template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(size_t n) {
    const size_t bytes = (n * sizeof(T) + kTensorAlignment - 1) / kTensorAlignment;
    void* p = std::aligned_alloc(kTensorAlignment, (bytes == 0 ? 1 : bytes) * kTensorAlignment);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const AlignedAllocator<U>&) const {
    return false;
  }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_ALIGNED_ALLOCATOR_H_
