#!/usr/bin/env bash
# Tune a quantized dense layer (uint8 × int8 → int32) on the embedded local farm, export the best
# kernel (`tunefarm export`), build main.cc against the library and run it. Then, ROUNDS times in
# turn, the farm measures the tuned config again (`tunefarm measure`, the way tuning timed it)
# and the application times the deployed kernel: their medians side by side, and the tuning
# log's best beside them. The kernel is the one this CPU runs best:
#   - AMX-INT8 (Sapphire Rapids or later, Linux 5.16+): the dense_u8s8_amx template (tdpbusd);
#   - AVX-512 VNNI: examples/programs/dense_u8s8_vnni.te (vpdpbusd);
#   - AVX2 alone: examples/programs/dense_u8s8_avx2.te (vpmaddwd), whose weight is widened to
#     int16 by a pack kernel that the library also exports and the application runs once.
# The application gives each the same weight in the VNNI layout [N/16][K/4][16][4].
#
#   examples/deploy_int8/run.sh                  # 1024³, 150 trials
#   TUNEFARM=bazel-bin/cli/tunefarm SHAPE=64,64,128 TRIALS=8 OUT=/tmp/x examples/deploy_int8/run.sh
#
# N and K must be multiples of 16 and 4. A CPU without AVX2 cannot run any of them: the script
# says so and exits 2. Both sides run on one thread.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=examples/side_by_side.sh
source "$here/../side_by_side.sh"
bin="${TUNEFARM:-tunefarm}"
shape="${SHAPE:-1024,1024,1024}"
trials="${TRIALS:-150}"
rounds="${ROUNDS:-3}"
out="${OUT:-$(mktemp -d)}"
IFS=, read -r m n k <<< "$shape"
if grep -qw amx_int8 /proc/cpuinfo; then
  kind=amx
elif grep -qw avx512_vnni /proc/cpuinfo; then
  kind=vnni
elif grep -qw avx2 /proc/cpuinfo; then
  kind=avx2
else
  echo "this CPU has neither AMX-INT8, AVX-512 VNNI nor AVX2: no int8 kernel here" >&2
  exit 2
fi
mkdir -p "$out"
cd "$out"
pack=()
if [ "$kind" = amx ]; then
  "$bin" tune dense_u8s8_amx --shape "$shape" --dtype int8 --trials "$trials" \
    --threads_per_worker 1 --db "$out/tuning.db" > tune.out 2> tune.err ||
    { cat tune.out tune.err; exit 1; }
  workload="dense_u8s8_amx:[${shape},\"int8\"]"
  prefix=dense_u8s8_amx_
else
  name="dense_u8s8_$kind"
  "$bin" tune --expr "$here/../programs/$name.te" --shape "M=$m,N=$n,K=$k" --trials "$trials" \
    --threads_per_worker 1 --db "$out/tuning.db" > tune.out 2> tune.err ||
    { cat tune.out tune.err; exit 1; }
  "$bin" best --db "$out/tuning.db" > best_all.out
  workload=$(program_workload "$name" best_all.out)
  prefix="expr_${name}_"
fi
echo "int8 kernel for this CPU: $kind ($workload)"
"$bin" best --db "$out/tuning.db" --workload "$workload" > best.out
tuned_ms=$(awk '$1 == "1" && $2 ~ /^[0-9.]+$/ {print $3; exit}' best.out)
"$bin" export --db "$out/tuning.db" --workload "$workload" --target llvm \
  -o "$out/libkernels.so" > export.out
kernel=$(awk -v p="$prefix" 'index($1, p) == 1 && $1 !~ /_pack_/ {print $1; exit}' export.out)
# dense_u8s8_avx2.te's int16 weight, widened once by the pack kernel exported beside it.
if [ "$kind" = avx2 ]; then pack=(-DPACK="${kernel}_pack_W"); fi
g++ -O2 -I"$out" -I"$here/.." -DM="$m" -DN="$n" -DK="$k" -DKERNEL="$kernel" "${pack[@]}" \
  "$here/main.cc" \
  -L"$out" -lkernels -Wl,-rpath,"$out" -o int8_app
OMP_NUM_THREADS=1 ./int8_app | tee app.out
grep -q "^ok," app.out
side_by_side "$bin" "$out/tuning.db" "$workload" "$rounds" "$tuned_ms" ./int8_app
