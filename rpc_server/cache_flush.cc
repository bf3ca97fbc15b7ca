#include "rpc_server/cache_flush.h"

#include <cstring>
#include <memory>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace tunefarm {
namespace {

// Larger than any current L3 slice a single core sees.
constexpr size_t kFlushBytes = 64u << 20;
// The line size of every x86-64 and common AArch64 core; a longer line only repeats work.
constexpr size_t kLineBytes = 64;

#if defined(__x86_64__)
// clflushopt when the CPU has it (unordered among themselves, several times faster than
// clflush over megabytes), clflush otherwise.
__attribute__((target("clflushopt"))) void FlushLinesOpt(const char* p, const char* end) {
  for (; p < end; p += kLineBytes) _mm_clflushopt(const_cast<char*>(p));
}
void FlushLines(const char* p, const char* end) {
  for (; p < end; p += kLineBytes) _mm_clflush(p);
}
// CPUID leaf 7, EBX bit 23 (gcc's __builtin_cpu_supports("clflushopt"), which clang does not
// know).
bool HasClflushopt() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 && (ebx & (1u << 23)) != 0;
}
#endif

}  // namespace

void FlushRange(const void* data, size_t bytes) {
  if (data == nullptr || bytes == 0) return;
  const auto begin = reinterpret_cast<uintptr_t>(data) & ~(uintptr_t{kLineBytes} - 1);
  const char* p = reinterpret_cast<const char*>(begin);
  const char* end = static_cast<const char*>(data) + bytes;
#if defined(__x86_64__)
  static const bool has_clflushopt = HasClflushopt();
  has_clflushopt ? FlushLinesOpt(p, end) : FlushLines(p, end);
  _mm_mfence();
#elif defined(__aarch64__)
  for (; p < end; p += kLineBytes) asm volatile("dc civac, %0" : : "r"(p) : "memory");
  asm volatile("dsb ish" : : : "memory");
#else
  (void)p;
  (void)end;
  FlushDataCache();
#endif
}

void FlushArguments(DLTensor* const* args, int32_t num_args, int32_t first) {
  for (int32_t i = first < 0 ? 0 : first; i < num_args; ++i) {
    const DLTensor* t = args[i];
    if (t == nullptr || t->data == nullptr) continue;
    size_t bytes = (t->dtype.bits * static_cast<size_t>(t->dtype.lanes) + 7) / 8;
    for (int d = 0; d < t->ndim; ++d)
      bytes *= t->shape[d] > 0 ? static_cast<size_t>(t->shape[d]) : 0;
    FlushRange(static_cast<const char*>(t->data) + t->byte_offset, bytes);
  }
}

void FlushDataCache() {
  static std::unique_ptr<char[]> buffer(new char[kFlushBytes]);
  static char value = 0;
  std::memset(buffer.get(), ++value, kFlushBytes);
}

}  // namespace tunefarm
