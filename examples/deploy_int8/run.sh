#!/usr/bin/env bash
# Tune the dense_u8s8_amx template (uint8 × int8 → int32 on AMX tiles) on the embedded local
# farm, export the best kernel (`tunefarm export`), build main.cc against the library and run
# it. Then, ROUNDS times in turn, the farm measures the tuned config again (`tunefarm measure`,
# the way tuning timed it) and the application times the deployed kernel: their medians side
# by side, and the tuning log's best beside them.
#
#   examples/deploy_int8/run.sh                  # 1024³, 150 trials
#   TUNEFARM=bazel-bin/cli/tunefarm SHAPE=64,64,128 TRIALS=8 OUT=/tmp/x examples/deploy_int8/run.sh
#
# Needs a CPU with AMX-INT8 (Sapphire Rapids or later) and Linux 5.16+; elsewhere the template
# refuses the target and this script says so and exits 2. Both sides run on one thread.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=examples/side_by_side.sh
source "$here/../side_by_side.sh"
bin="${TUNEFARM:-tunefarm}"
shape="${SHAPE:-1024,1024,1024}"
trials="${TRIALS:-150}"
rounds="${ROUNDS:-3}"
out="${OUT:-$(mktemp -d)}"
if ! grep -qw amx_int8 /proc/cpuinfo; then
  echo "this CPU has no AMX-INT8: dense_u8s8_amx cannot run here" >&2
  exit 2
fi
mkdir -p "$out"
cd "$out"
"$bin" tune dense_u8s8_amx --shape "$shape" --dtype int8 --trials "$trials" \
  --threads_per_worker 1 --db "$out/tuning.db" > tune.out 2> tune.err ||
  { cat tune.out tune.err; exit 1; }
workload="dense_u8s8_amx:[${shape},\"int8\"]"
"$bin" best --db "$out/tuning.db" --workload "$workload" > best.out
tuned_ms=$(awk '$1 == "1" && $2 ~ /^[0-9.]+$/ {print $3; exit}' best.out)
"$bin" export --db "$out/tuning.db" --workload "$workload" --target llvm \
  -o "$out/libkernels.so" > export.out
kernel=$(awk '/^dense_u8s8_amx_/ {print $1; exit}' export.out)
IFS=, read -r m n k <<< "$shape"
g++ -O2 -I"$out" -DM="$m" -DN="$n" -DK="$k" -DKERNEL="$kernel" "$here/main.cc" \
  -L"$out" -lkernels -Wl,-rpath,"$out" -o int8_app
OMP_NUM_THREADS=1 ./int8_app | tee app.out
grep -q "^ok," app.out
side_by_side "$bin" "$out/tuning.db" "$workload" "$rounds" "$tuned_ms" ./int8_app
