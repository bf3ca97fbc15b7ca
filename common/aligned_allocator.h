// A std::vector allocator whose storage starts on a 64-byte boundary: what tuned kernels were
// timed with (the farm's tensors are so aligned) and what the exported header asks for
// (TF_KERNEL_ALIGNMENT). glibc's malloc gives large blocks 16-byte alignment, on which AVX-512
// loads split cache lines: a tuned Winograd convolution ran about 8% slower.
//
// Blocks of 2 MiB or more start on a 2 MiB boundary and are advised onto transparent huge
// pages (THP "madvise" mode needs the call), as the compiled model runner's weights and arena
// are (graph/emit_runner.cc): a kernel that streams a large operand then does not take a page
// walk every 4 KiB, and the hardware prefetchers, which stop at page boundaries, run on. The
// farm's tensors, the benchmarks' and a deployed model's are then allocated alike.
//
//   AlignedVector<float> input(n);
//   void* p = AllocateTensorStorage(bytes);  // std::free(p) when done
#ifndef TUNEFARM_COMMON_ALIGNED_ALLOCATOR_H_
#define TUNEFARM_COMMON_ALIGNED_ALLOCATOR_H_

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace tunefarm {

inline constexpr size_t kTensorAlignment = 64;
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// `bytes` (at least one alignment unit) on a kTensorAlignment boundary, or on a huge page
// boundary and advised onto huge pages when at least kHugePageBytes; nullptr when out of
// memory. Freed with std::free.
inline void* AllocateTensorStorage(size_t bytes) {
  const size_t align = bytes >= kHugePageBytes ? kHugePageBytes : kTensorAlignment;
  if (bytes > SIZE_MAX - align) return nullptr;  // Rounded up, it would wrap around.
  const size_t rounded = (bytes == 0 ? 1 : (bytes + align - 1) / align) * align;
  void* p = std::aligned_alloc(align, rounded);
#if defined(MADV_HUGEPAGE)
  // Advice only: the kernel keeps small pages where it has no huge ones.
  if (p != nullptr && align == kHugePageBytes) (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(size_t n) {
    void* p = AllocateTensorStorage(n * sizeof(T));
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
