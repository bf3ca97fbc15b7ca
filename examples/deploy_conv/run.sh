#!/usr/bin/env bash
# Tune examples/programs/conv2d_winograd.te on the embedded local farm, export the best kernel
# with its filter transform (`tunefarm export`), build main.cc against the library and run it.
# Then, ROUNDS times in turn, the farm measures the tuned config again (`tunefarm measure`, the
# way tuning timed it) and the application times the deployed kernel: their medians side by
# side, and the tuning log's time for it beside them (the median of its re-measurements).
#
#   examples/deploy_conv/run.sh                 # ResNet-50's 3×3 layer at 56×56, 200 trials
#   TUNEFARM=bazel-bin/cli/tunefarm SHAPE=C=1,H=8,W=8,F=1 TRIALS=8 OUT=/tmp/x examples/deploy_conv/run.sh
#
# Both sides run the kernel on one thread (the worker's OMP_NUM_THREADS=1, --threads_per_worker 1).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=examples/side_by_side.sh
source "$here/../side_by_side.sh"
bin="${TUNEFARM:-tunefarm}"
shape="${SHAPE:-C=4,H=56,W=56,F=4}"
trials="${TRIALS:-200}"
rounds="${ROUNDS:-3}"
out="${OUT:-$(mktemp -d)}"
program="$here/../programs/conv2d_winograd.te"
mkdir -p "$out"
cd "$out"
"$bin" tune --expr "$program" --shape "N=1,$shape" --trials "$trials" --threads_per_worker 1 \
  --db "$out/tuning.db" > tune.out 2> tune.err || { cat tune.out tune.err; exit 1; }
"$bin" best --db "$out/tuning.db" > best.out
workload=$(program_workload conv2d_winograd best.out)
tuned_ms=$(awk '$1 == "1" && $2 ~ /^[0-9.]+$/ {print $3; exit}' best.out)
"$bin" export --db "$out/tuning.db" --workload "$workload" --target llvm \
  -o "$out/libkernels.so" > export.out
kernel=$(awk '/^expr_conv2d_winograd_/ {print $1; exit}' export.out)
defs=$(echo "$shape" | sed -E 's/([A-Z]+)=([0-9]+)/-D\1=\2/g; s/,/ /g')
# shellcheck disable=SC2086
g++ -O2 -I"$out" -I"$here/.." $defs -DKERNEL="$kernel" -DPACK="${kernel}_pack_Wt" "$here/main.cc" \
  -L"$out" -lkernels -Wl,-rpath,"$out" -o conv_app
OMP_NUM_THREADS=1 ./conv_app | tee app.out
grep -q "^ok," app.out
side_by_side "$bin" "$out/tuning.db" "$workload" "$rounds" "$tuned_ms" ./conv_app
