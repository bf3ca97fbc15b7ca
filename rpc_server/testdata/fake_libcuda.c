/* A fake CUDA driver for tests on machines without a GPU: the entry points CudaDriver resolves,
 * backed by host memory and host execution. Loaded through TUNEFARM_LIBCUDA, it lets the CUDA
 * harness, the CUDA sandbox child and CudaBackend run end to end anywhere. It is a functional
 * stand-in, not a model of the hardware:
 *   - "device" pointers are host pointers; copies are memcpy; launches run synchronously;
 *   - cuModuleLoadDataEx accepts any text with a `.entry`, except text containing "addd"
 *     (a deliberate PTX syntax error), which fails with CUDA_ERROR_INVALID_PTX and a ptxas-like
 *     error log;
 *   - kernels are known by entry name (those of testdata/vadd.ptx and the calibration kernel);
 *     "vadd_illegal_address" raises CUDA_ERROR_ILLEGAL_ADDRESS as a sticky error: from then on
 *     every call of this process fails with it, as with a real context;
 *   - events record the host's monotonic clock. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
};

enum { kElements = 4096 };

static CUresult g_sticky = CUDA_SUCCESS;

#define STICKY_GUARD \
  if (g_sticky != CUDA_SUCCESS) return g_sticky

struct Module {
  char* text;
};

struct Function {
  char name[64];
  int params;
};

struct Event {
  double seconds;
};

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

CUresult cuInit(unsigned int flags) {
  (void)flags;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** str) {
  switch (error) {
    case CUDA_SUCCESS:
      *str = "CUDA_SUCCESS";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE:
      *str = "CUDA_ERROR_INVALID_VALUE";
      return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY:
      *str = "CUDA_ERROR_OUT_OF_MEMORY";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_PTX:
      *str = "CUDA_ERROR_INVALID_PTX";
      return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_FOUND:
      *str = "CUDA_ERROR_NOT_FOUND";
      return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      *str = "CUDA_ERROR_ILLEGAL_ADDRESS";
      return CUDA_SUCCESS;
    default:
      *str = NULL;
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuGetErrorString(CUresult error, const char** str) {
  switch (error) {
    case CUDA_SUCCESS:
      *str = "no error";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE:
      *str = "invalid argument";
      return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY:
      *str = "out of memory";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_PTX:
      *str = "a PTX JIT compilation failed";
      return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_FOUND:
      *str = "named symbol not found";
      return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      *str = "an illegal memory access was encountered";
      return CUDA_SUCCESS;
    default:
      *str = NULL;
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(int* device, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_VALUE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, int device) {
  (void)device;
  snprintf(name, (size_t)len, "Fake CUDA Device");
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, int attribute, int device) {
  (void)device;
  switch (attribute) {
    case 1:
      *value = 1024;
      break; /* max threads per block */
    case 2:
    case 3:
      *value = 1024;
      break; /* max block x, y */
    case 4:
      *value = 64;
      break; /* max block z */
    case 5:
      *value = 2147483647;
      break; /* max grid x */
    case 6:
    case 7:
      *value = 65535;
      break; /* max grid y, z */
    case 8:
      *value = 48 << 10;
      break; /* shared memory per block */
    case 16:
      *value = 4;
      break; /* multiprocessors */
    case 38:
      *value = 1 << 20;
      break; /* L2 bytes */
    case 75:
      *value = 9;
      break; /* compute capability */
    case 76:
      *value = 0;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, int device) {
  (void)device;
  *bytes = (size_t)1 << 30;
  return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(void** context, unsigned int flags, int device) {
  (void)flags;
  (void)device;
  *context = malloc(1);
  return CUDA_SUCCESS;
}

CUresult cuCtxDestroy_v2(void* context) {
  free(context);
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
  STICKY_GUARD;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(struct Module** module, const void* image, unsigned int num_options,
                            int* options, void** values) {
  STICKY_GUARD;
  const char* text = (const char*)image;
  if (strstr(text, "addd") != NULL || strstr(text, ".entry") == NULL) {
    for (unsigned int i = 0; i + 1 < num_options; ++i) {
      if (options[i] == 5 && options[i + 1] == 6) { /* error log buffer and its size */
        snprintf((char*)values[i], (size_t)(uintptr_t)values[i + 1],
                 "ptxas application ptx input, line 30; error   : Not a name of any known "
                 "instruction: 'addd'");
      }
    }
    return CUDA_ERROR_INVALID_PTX;
  }
  *module = (struct Module*)malloc(sizeof(struct Module));
  (*module)->text = strdup(text);
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(struct Module* module) {
  free(module->text);
  free(module);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(struct Function** function, struct Module* module, const char* name) {
  STICKY_GUARD;
  char pattern[96];
  snprintf(pattern, sizeof(pattern), ".entry %s(", name);
  if (strstr(module->text, pattern) == NULL) return CUDA_ERROR_NOT_FOUND;
  struct Function* f = (struct Function*)calloc(1, sizeof(struct Function));
  snprintf(f->name, sizeof(f->name), "%s", name);
  f->params = strcmp(name, "tunefarm_calibrate") == 0 ? 1 : 3;
  *function = f; /* leaked with the module: tests load a handful */
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int* value, int attribute, struct Function* function) {
  (void)function;
  if (attribute == 0) { /* max threads per block */
    *value = 1024;
    return CUDA_SUCCESS;
  }
  *value = 0;
  return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(struct Function* function, size_t index, size_t* offset, size_t* size) {
  if ((int)index >= function->params) return CUDA_ERROR_INVALID_VALUE;
  *offset = 8 * index;
  if (size != NULL) *size = 8;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(uint64_t* ptr, size_t bytes) {
  STICKY_GUARD;
  void* p = malloc(bytes);
  if (p == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = (uint64_t)(uintptr_t)p;
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(uint64_t ptr) {
  free((void*)(uintptr_t)ptr);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(uint64_t dst, const void* src, size_t bytes) {
  STICKY_GUARD;
  memcpy((void*)(uintptr_t)dst, src, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void* dst, uint64_t src, size_t bytes) {
  STICKY_GUARD;
  memcpy(dst, (const void*)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(uint64_t dst, unsigned char value, size_t count) {
  STICKY_GUARD;
  memset((void*)(uintptr_t)dst, value, count);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(uint64_t dst, unsigned char value, size_t count, void* stream) {
  (void)stream;
  return cuMemsetD8_v2(dst, value, count);
}

CUresult cuStreamSynchronize(void* stream) {
  (void)stream;
  STICKY_GUARD;
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(struct Event** event, unsigned int flags) {
  (void)flags;
  *event = (struct Event*)calloc(1, sizeof(struct Event));
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(struct Event* event) {
  free(event);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(struct Event* event, void* stream) {
  (void)stream;
  STICKY_GUARD;
  event->seconds = Now();
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(struct Event* event) {
  (void)event;
  STICKY_GUARD;
  return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float* ms, struct Event* start, struct Event* end) {
  STICKY_GUARD;
  *ms = (float)((end->seconds - start->seconds) * 1e3);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(struct Function* f, unsigned int grid_x, unsigned int grid_y,
                        unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                        unsigned int block_z, unsigned int shared_bytes, void* stream,
                        void** params, void** extra) {
  (void)grid_y;
  (void)grid_z;
  (void)block_y;
  (void)block_z;
  (void)shared_bytes;
  (void)stream;
  (void)extra;
  STICKY_GUARD;
  if (strcmp(f->name, "tunefarm_calibrate") == 0) {
    double until = Now() + 100e-6;
    while (Now() < until) {
    }
    return CUDA_SUCCESS;
  }
  const float* a = (const float*)(uintptr_t)(*(uint64_t*)params[0]);
  const float* b = (const float*)(uintptr_t)(*(uint64_t*)params[1]);
  float* c = (float*)(uintptr_t)(*(uint64_t*)params[2]);
  unsigned int threads = grid_x * block_x;
  int n = threads < kElements ? (int)threads : kElements;
  if (strcmp(f->name, "vadd_illegal_address") == 0) {
    g_sticky = CUDA_ERROR_ILLEGAL_ADDRESS; /* reported by the next call, as on a GPU */
    return CUDA_SUCCESS;
  }
  int wrong = strcmp(f->name, "vadd_wrong") == 0;
  for (int i = 0; i < n; ++i) c[i] = wrong ? a[i] - b[i] : a[i] + b[i];
  return CUDA_SUCCESS;
}
