#!/usr/bin/env bash
# Tune examples/programs/dense_pairs.te (a dense layer of 8 or 16 outputs, its weight in pairs
# of inputs) on the embedded local farm, export the best kernel (`tunefarm export`), build
# main.cc against the library and run it: the application reorders a plain [N][K] weight into
# the pairs layout once and checks every output against a plain loop. Then, ROUNDS times in
# turn, the farm measures the tuned config again (`tunefarm measure`, the way tuning timed it)
# and the application times the deployed kernel: their medians side by side, and the tuning
# log's time for it beside them.
#
#   examples/deploy_pairs/run.sh                 # 512×16×512 (M,N,K), 150 trials
#   TUNEFARM=bazel-bin/cli/tunefarm SHAPE=24,16,64 TRIALS=8 OUT=/tmp/x examples/deploy_pairs/run.sh
#
# N a multiple of 8, K even (the program refuses other shapes). Both sides run on one thread.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=examples/side_by_side.sh
source "$here/../side_by_side.sh"
bin="${TUNEFARM:-tunefarm}"
shape="${SHAPE:-512,16,512}"
trials="${TRIALS:-150}"
rounds="${ROUNDS:-3}"
out="${OUT:-$(mktemp -d)}"
IFS=, read -r m n k <<< "$shape"
mkdir -p "$out"
cd "$out"
"$bin" tune --expr "$here/../programs/dense_pairs.te" --shape "M=$m,N=$n,K=$k" \
  --trials "$trials" --threads_per_worker 1 --db "$out/tuning.db" > tune.out 2> tune.err ||
  { cat tune.out tune.err; exit 1; }
"$bin" best --db "$out/tuning.db" > best_all.out
workload=$(program_workload dense_pairs best_all.out)
"$bin" best --db "$out/tuning.db" --workload "$workload" > best.out
tuned_ms=$(awk '$1 == "1" && $2 ~ /^[0-9.]+$/ {print $3; exit}' best.out)
"$bin" export --db "$out/tuning.db" --workload "$workload" --target llvm \
  -o "$out/libkernels.so" > export.out
kernel=$(awk 'index($1, "expr_dense_pairs_") == 1 && $1 !~ /_pack_/ {print $1; exit}' export.out)
g++ -O2 -I"$out" -I"$here/.." -DM="$m" -DN="$n" -DK="$k" -DKERNEL="$kernel" "$here/main.cc" \
  -L"$out" -lkernels -Wl,-rpath,"$out" -o pairs_app
OMP_NUM_THREADS=1 ./pairs_app | tee app.out
grep -q "^ok," app.out
side_by_side "$bin" "$out/tuning.db" "$workload" "$rounds" "$tuned_ms" ./pairs_app
