/* Test artifacts with the kernel C ABI. Each shared library is built from this file with one
 * KERNEL_* macro defined, and exports the kernel under the name "kernel" plus the
 * tunefarm_kernel_names listing. Arguments: float32 inputs a, b and output c of equal size
 * (the no-op kernel takes any arguments). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/abi/kernel_abi.h"

const char* tunefarm_kernel_names(void) { return "kernel"; }

__attribute__((unused)) static int64_t Elements(const DLTensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

int32_t kernel(DLTensor* const* args, int32_t num_args) {
#if defined(KERNEL_NOOP)
  (void)args;
  (void)num_args;
  return TF_KERNEL_OK;
#else
  if (num_args != 3) return TF_KERNEL_BAD_ARG_COUNT;
  for (int i = 0; i < 3; ++i) {
    if (args[i] == NULL || args[i]->data == NULL) return TF_KERNEL_NULL_ARG;
    if (args[i]->dtype.code != kDLFloat || args[i]->dtype.bits != 32) return TF_KERNEL_BAD_DTYPE;
  }
  int64_t n = Elements(args[2]);
  if (Elements(args[0]) != n || Elements(args[1]) != n) return TF_KERNEL_BAD_SHAPE;
  const float* a = (const float*)args[0]->data;
  const float* b = (const float*)args[1]->data;
  float* c = (float*)args[2]->data;
#if defined(KERNEL_VADD)
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
#elif defined(KERNEL_VADD_REVERSED)
  /* Same result, different loop order: a correct "candidate schedule". */
  for (int64_t i = n - 1; i >= 0; --i) c[i] = b[i] + a[i];
#elif defined(KERNEL_WRONG)
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] - b[i];
#elif defined(KERNEL_SKIP_WRITES)
  for (int64_t i = 0; i + 1 < n; ++i) c[i] = a[i] + b[i]; /* forgets the last element */
#elif defined(KERNEL_SEGFAULT)
  (void)a;
  (void)b;
  (void)c;
  volatile int* p = (volatile int*)(uintptr_t)8;
  *p = 1;
#elif defined(KERNEL_LOOP)
  (void)a;
  (void)b;
  (void)c;
  volatile uint64_t spin = 0;
  for (;;) ++spin;
#elif defined(KERNEL_OOM)
  (void)a;
  (void)b;
  (void)c;
  for (;;) {
    char* chunk = (char*)malloc(64 << 20);
    memset(chunk, 1, 64 << 20); /* NULL once the address space is exhausted: crashes */
  }
#elif defined(KERNEL_BAD_RC)
  (void)a;
  (void)b;
  (void)c;
  return TF_KERNEL_BAD_SHAPE;
#endif
  return TF_KERNEL_OK;
#endif
}
