// The environment a sandbox child gets: an allowlist of the worker's variables, so that no
// secret of the worker (TUNEFARM_TOKEN and the like) reaches a kernel.
#ifndef TUNEFARM_RPC_SERVER_SANDBOX_ENVIRONMENT_H_
#define TUNEFARM_RPC_SERVER_SANDBOX_ENVIRONMENT_H_

#include <string>
#include <vector>

namespace tunefarm {

// The "NAME=value" entries of `environ` (null-terminated) that a kernel may see: PATH, HOME,
// TMPDIR, LANG, LC_ALL, TZ, LD_LIBRARY_PATH, TUNEFARM_LIBCUDA (the driver to load), and the
// OpenMP (OMP_*, GOMP_*) and CUDA (CUDA_*) runtime settings. Everything else is dropped.
// `kernel_threads` > 0 sets OMP_NUM_THREADS to it, whatever the worker's own value.
std::vector<std::string> SandboxEnvironment(char* const* environ, int kernel_threads = 0);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_SANDBOX_ENVIRONMENT_H_
