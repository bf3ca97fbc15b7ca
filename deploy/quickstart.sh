#!/usr/bin/env bash
# The README's first quick-start command: installs missing packages, builds `tunefarm`, and
# runs the main job. Extra arguments go to `tunefarm`, replacing the default job.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/setup.sh
bazel build -c opt //cli:tunefarm
bin=bazel-bin/cli/tunefarm
if [[ $# -gt 0 ]]; then
  exec "$bin" "$@"
fi
"$bin" version
# Until the tuner lands (issue 6) the main job is the compiler's smoke test: LLVM's ORC JIT
# compiles and runs a function in this process.
bazel test -c opt //compiler:llvm_smoke_test
