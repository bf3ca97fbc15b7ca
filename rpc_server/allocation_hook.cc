#include "rpc_server/allocation_hook.h"

#include <errno.h>

#include <cstdint>

// glibc's allocator under its internal names: the definitions below forward to them.
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* ptr, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void* __libc_valloc(size_t size);
void* __libc_pvalloc(size_t size);
}

namespace tunefarm {
namespace {

// Set once before any kernel runs; read from any thread afterwards (and from the allocator,
// which must not allocate or lock), hence a plain atomic pointer rather than an injected object.
std::atomic<SandboxStatusPage*> g_page{nullptr};

void* Checked(void* p, size_t bytes) {
  if (p == nullptr && bytes != 0) NoteAllocationFailure(bytes);
  return p;
}

bool IsPowerOfTwo(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

}  // namespace

void RecordAllocationFailuresOn(SandboxStatusPage* page) { g_page.store(page); }

void NoteAllocationFailure(size_t bytes) {
  SandboxStatusPage* page = g_page.load(std::memory_order_relaxed);
  if (page == nullptr) return;
  if (page->allocation_failures.fetch_add(1) == 0) page->failed_allocation_bytes.store(bytes);
}

}  // namespace tunefarm

// The malloc family of the sandbox binary (see allocation_hook.h). `free` stays glibc's: every
// pointer handed out here came from glibc's allocator.
extern "C" {

void* malloc(size_t size) { return tunefarm::Checked(__libc_malloc(size), size); }

void* calloc(size_t count, size_t size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) bytes = SIZE_MAX;
  return tunefarm::Checked(__libc_calloc(count, size), bytes);
}

void* realloc(void* ptr, size_t size) { return tunefarm::Checked(__libc_realloc(ptr, size), size); }

void* reallocarray(void* ptr, size_t count, size_t size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    tunefarm::NoteAllocationFailure(SIZE_MAX);
    return nullptr;
  }
  return realloc(ptr, bytes);
}

void* memalign(size_t alignment, size_t size) {
  return tunefarm::Checked(__libc_memalign(alignment, size), size);
}

void* aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (!tunefarm::IsPowerOfTwo(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  void* p = memalign(alignment, size);
  if (p == nullptr && size != 0) return ENOMEM;
  *out = p;
  return 0;
}

void* valloc(size_t size) { return tunefarm::Checked(__libc_valloc(size), size); }

void* pvalloc(size_t size) { return tunefarm::Checked(__libc_pvalloc(size), size); }

}  // extern "C"
