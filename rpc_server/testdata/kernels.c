/* Test artifacts with the kernel C ABI. Each shared library is built from this file with one
 * KERNEL_* macro defined, and exports the kernel under the name "kernel" plus the
 * tunefarm_kernel_names listing. Arguments: float32 inputs a, b and output c of equal size
 * (the no-op kernel takes any arguments). vadd_packed also exports pack_b, which packs its b
 * ahead of time (MeasureRequest.packed_args).
 *
 * The hostile kernels compute the right answer only when their attack failed, so a test that
 * expects ERROR_NONE from them proves that the sandbox stopped the attack; the others are
 * expected to end the child with a clear error class. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compiler/abi/kernel_abi.h"

const char* tunefarm_kernel_names(void) { return "kernel"; }

__attribute__((unused)) static int64_t Elements(const DLTensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

#if defined(KERNEL_VADD_PACKED)
/* The pack function of vadd_packed: its input b reversed, as a weight's layout change. */
int32_t pack_b(DLTensor* const* args, int32_t num_args) {
  if (num_args != 2) return TF_KERNEL_BAD_ARG_COUNT;
  int64_t n = Elements(args[0]);
  if (Elements(args[1]) != n) return TF_KERNEL_BAD_SHAPE;
  const float* b = (const float*)args[0]->data;
  float* p = (float*)args[1]->data;
  for (int64_t i = 0; i < n; ++i) p[i] = b[n - 1 - i];
  return TF_KERNEL_OK;
}
#endif

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
#elif defined(KERNEL_VADD_PACKED)
  /* b arrives packed ahead of time by pack_b (reversed): right only when the worker packed it. */
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[n - 1 - i];
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
  /* Allocates until the address space is exhausted, touching one byte per chunk (so it gets
   * there as fast on a slow machine as on a fast one), then writes through the null pointer. */
  (void)a;
  (void)b;
  (void)c;
  for (;;) {
    volatile char* chunk = (volatile char*)malloc(64 << 20);
    chunk[0] = 1;
  }
#elif defined(KERNEL_OOM_TOUCH)
  /* Pages in every byte it allocates until the address space is exhausted, then crashes. */
  (void)a;
  (void)b;
  (void)c;
  for (;;) {
    char* chunk = (char*)malloc(64 << 20);
    memset(chunk, 1, 64 << 20);
  }
#elif defined(KERNEL_OOM_SPIN)
  /* An allocation fails; the kernel then spins until the timeout kills it. */
  (void)a;
  (void)b;
  (void)c;
  while (malloc(64 << 20) != NULL) {
  }
  volatile uint64_t spin = 0;
  for (;;) ++spin;
#elif defined(KERNEL_STDOUT)
  /* Prints to stdout and stderr (the worker's frame channel used to be stdout). */
  for (int k = 0; k < 1000; ++k) {
    printf("kernel output %d: \x01\x00\x00\x7f garbage that looks like a frame\n", k);
    fprintf(stderr, "kernel error output %d\n", k);
  }
  fflush(stdout);
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
#elif defined(KERNEL_FORK)
  /* Tries to start a process; ends the child (forbidden system call). */
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] - b[i];
#elif defined(KERNEL_UNLISTED)
  /* A call no kernel needs but no denylist would name (it only reads the execution domain):
   * the allowlist ends the child all the same. */
  syscall(SYS_personality, 0xffffffffUL);
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] - b[i];
#elif defined(KERNEL_SOCKET)
  /* Tries to open a TCP socket; ends the child (forbidden system call). */
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s >= 0) close(s);
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] - b[i];
#elif defined(KERNEL_READ_TOKEN)
  /* Looks for the worker's token in its own environment and in its parent's; the answer is
   * right only if it found nothing. */
  int found = getenv("TUNEFARM_TOKEN") != NULL;
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/environ", (int)getppid());
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    static char env[1 << 16];
    ssize_t len = read(fd, env, sizeof(env) - 1);
    close(fd);
    for (ssize_t i = 0; len > 0 && i < len; i += (ssize_t)strlen(env + i) + 1) {
      if (strncmp(env + i, "TUNEFARM_TOKEN=", 15) == 0) found = 1;
    }
  }
  for (int64_t i = 0; i < n; ++i) c[i] = found ? a[i] - b[i] : a[i] + b[i];
#elif defined(KERNEL_WRITE_CACHE)
  /* Tries to overwrite its own artifact file in the worker's cache and to drop a new file
   * beside it; ends the child (forbidden system call). */
  Dl_info info;
  if (dladdr((void*)&kernel, &info) != 0 && info.dli_fname != NULL) {
    int fd = open(info.dli_fname, O_WRONLY);
    if (fd >= 0) {
      write(fd, "pwned", 5);
      close(fd);
    }
  }
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] - b[i];
#elif defined(KERNEL_KILL_PARENT)
  /* Tries to kill the worker; ends the child (forbidden system call). */
  kill(getppid(), SIGKILL);
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] - b[i];
#elif defined(KERNEL_SLEEP)
  /* Sleeps forever (no CPU time: only the wall clock ends it). */
  (void)a;
  (void)b;
  (void)c;
  for (;;) pause();
#elif defined(KERNEL_SIGSTOP)
  /* Stops itself. */
  (void)a;
  (void)b;
  (void)c;
  raise(SIGSTOP);
  for (;;) pause();
#elif defined(KERNEL_BAD_RC)
  (void)a;
  (void)b;
  (void)c;
  return TF_KERNEL_BAD_SHAPE;
#endif
  return TF_KERNEL_OK;
#endif
}
