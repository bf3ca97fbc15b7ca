#!/usr/bin/env bash
# Tune a small dense on the embedded local farm, export the best config as a kernel library
# with `tunefarm export`, compile the example application against it and run it.
set -euo pipefail
bin="$PWD/cli/tunefarm"
example="$PWD/examples/deploy_dense/main.cc"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
"$bin" tune dense --shape 64,96,80 --trials 8 --batch 8 --strategy random --workers 1 \
  --db "$tmp/t.db" --top_k 2 --min_repeat_ms 1 > tune.out 2> tune.err || { cat tune.out tune.err; exit 1; }
grep -q "succeeded" tune.out
"$bin" export --db "$tmp/t.db" --workload 'dense:[64,96,80,"float32"]' --target llvm \
  -o "$tmp/libkernels.so" | tee export.out
tuned=$(awk '/^dense_64_96_80_float32/ {print $2}' export.out)
test -s "$tmp/kernels.h"
g++ -O2 -I"$tmp" -DM=64 -DN=96 -DK=80 -DKERNEL=dense_64_96_80_float32 "$example" \
  -L"$tmp" -lkernels -Wl,-rpath,"$tmp" -o app
./app | tee app.out
grep -q ": ok," app.out
app=$(sed -E 's/.* ([0-9.]+) GFLOP\/s/\1/' app.out)
# Printed, not asserted: a test's verdict must not depend on the machine's speed (the speed of
# a deployed kernel is shown by examples/deploy_conv/run.sh and the benchmarks).
echo "tuned ${tuned} GFLOP/s in the sandbox, ${app} GFLOP/s in the application"
# A workload that was never tuned is a clear error.
if "$bin" export --db "$tmp/t.db" --workload 'dense:[8,8,8,"float32"]' --target llvm \
   -o "$tmp/x.so" 2> err.txt; then echo "expected failure"; exit 1; fi
grep -q "dense" err.txt
echo "PASS"
