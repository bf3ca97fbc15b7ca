#!/usr/bin/env bash
# The README's first quick-start command: installs missing packages, builds `tunefarm`, and
# runs the main job: tuning fp32 dense 512x512x512 on the embedded local farm (a tracker and one
# sandboxed worker per core in this process tree), recording every measurement in tuning.db,
# then showing the best schedules found. Extra arguments go to `tunefarm` instead.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/setup.sh
bazel build -c opt //cli:tunefarm
bin=bazel-bin/cli/tunefarm
if [[ $# -gt 0 ]]; then
  exec "$bin" "$@"
fi
"$bin" version --short
"$bin" tune dense --shape 512,512,512 --trials 200 --db tuning.db
"$bin" best --db tuning.db --workload dense -k 5
