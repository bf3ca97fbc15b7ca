#!/usr/bin/env bash
# The first real check on a machine with an NVIDIA GPU and driver: the GPU tests that skip
# elsewhere (driver, worker, local farm, tuning end to end), then the GPU benchmark against
# cuBLAS. Installs missing packages like the other deploy scripts. Usage:
#   deploy/gpu_check.sh [--quick]        # --quick: the benchmark's short run
set -uo pipefail
cd "$(dirname "$0")/.."
deploy/setup.sh || exit 1
if ! ldconfig -p 2>/dev/null | grep -q "libcuda.so.1"; then
  echo "gpu_check: libcuda.so.1 is not installed: this machine has no NVIDIA driver" >&2
fi
bazel test --test_output=errors \
  //rpc_server:cuda_driver_test //rpc_server:cuda_backend_test //rpc_server:cuda_ptx_test \
  //tracker:local_farm_test //tests:gpu_tune_e2e_test //tests:gpu_farm_test \
  //compiler/tests:gpu_ptxas_test //tuner/templates:gpu_template_ptxas_test \
  //tuner/generated:gpu_space_ptxas_test
rc=$?
testlogs=$(bazel info bazel-testlogs 2>/dev/null)
if grep -lqr "SKIPPED \] [0-9]* test" "$testlogs/rpc_server" "$testlogs/tests" 2>/dev/null; then
  echo "gpu_check: some GPU tests skipped (see above): no usable GPU" >&2
fi
bazel run -c opt //bench:gpu_dense -- "$@" || rc=1
exit "$rc"
