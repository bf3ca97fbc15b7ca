#include "bench/cublas.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tunefarm::bench {
namespace {

// cublas_api.h / library_types.h values.
constexpr int kOpN = 0, kOpT = 1;
constexpr int kR32F = 0, kR16F = 2;
constexpr int kCompute32F = 68;
constexpr int kGemmDefaultTensorOp = 99;

}  // namespace

absl::StatusOr<Cublas*> Cublas::Load() {
  static absl::StatusOr<Cublas*> loaded = []() -> absl::StatusOr<Cublas*> {
    std::string tried;
    void* lib = nullptr;
    std::vector<std::string> names;
    if (const char* env = std::getenv("TUNEFARM_LIBCUBLAS")) names.push_back(env);
    std::vector<std::string> dirs = {""};
    if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(absl::StrCat(home, "/lib64/"));
    dirs.push_back("/usr/local/cuda/lib64/");
    for (const std::string& dir : dirs) {
      for (const char* so :
           {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"}) {
        names.push_back(dir + so);
      }
    }
    for (const std::string& name : names) {
      lib = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL);
      if (lib != nullptr) break;
      absl::StrAppend(&tried, tried.empty() ? "" : "; ", dlerror());
    }
    if (lib == nullptr) return absl::UnavailableError(absl::StrCat("no cuBLAS: ", tried));
    auto* c = new Cublas();
    c->create_ = reinterpret_cast<decltype(c->create_)>(dlsym(lib, "cublasCreate_v2"));
    c->sgemm_ = reinterpret_cast<decltype(c->sgemm_)>(dlsym(lib, "cublasSgemm_v2"));
    c->gemm_ex_ = reinterpret_cast<decltype(c->gemm_ex_)>(dlsym(lib, "cublasGemmEx"));
    if (c->create_ == nullptr || c->sgemm_ == nullptr || c->gemm_ex_ == nullptr) {
      return absl::UnavailableError("no cuBLAS: missing cublasCreate_v2/Sgemm_v2/GemmEx");
    }
    if (int r = c->create_(&c->handle_); r != 0) {
      return absl::UnavailableError(
          absl::StrCat("no cuBLAS: cublasCreate failed (status ", r, ")"));
    }
    return c;
  }();
  return loaded;
}

absl::Status Cublas::Dense(bool fp16, int m, int n, int k, uint64_t a, uint64_t w,
                           uint64_t c) const {
  // Column-major view: Cᵀ[n, m] = W[n, k] · Aᵀ, i.e. op(W) = Wᵀ of the k×n column-major W.
  const float one = 1.0f, zero = 0.0f;
  int r;
  if (!fp16) {
    r = sgemm_(handle_, kOpT, kOpN, n, m, k, &one, reinterpret_cast<const float*>(w), k,
               reinterpret_cast<const float*>(a), k, &zero, reinterpret_cast<float*>(c), n);
  } else {
    r = gemm_ex_(handle_, kOpT, kOpN, n, m, k, &one, reinterpret_cast<const void*>(w), kR16F, k,
                 reinterpret_cast<const void*>(a), kR16F, k, &zero, reinterpret_cast<void*>(c),
                 kR32F, n, kCompute32F, kGemmDefaultTensorOp);
  }
  if (r != 0) return absl::InternalError(absl::StrCat("cuBLAS gemm failed with status ", r));
  return absl::OkStatus();
}

}  // namespace tunefarm::bench
