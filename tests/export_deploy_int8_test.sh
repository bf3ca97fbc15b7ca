#!/usr/bin/env bash
# examples/deploy_int8/run.sh end to end at a small shape: dense_u8s8_amx tuned, exported and
# called by the application, which checks every int32 output against a plain loop; the
# side-by-side round (tunefarm measure of the same config, then the application) reports.
# A CPU without AMX-INT8 cannot run the kernel: the script must say so (exit 2), and the test
# then checks only that refusal.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
set +e
TUNEFARM="$PWD/cli/tunefarm" SHAPE=48,64,192 TRIALS=8 ROUNDS=1 OUT="$tmp/run" \
  bash examples/deploy_int8/run.sh > "$tmp/run.txt" 2> "$tmp/run.err"
rc=$?
set -e
cat "$tmp/run.txt" "$tmp/run.err"
if ! grep -qw amx_int8 /proc/cpuinfo; then
  if [ "$rc" -ne 2 ] || ! grep -q "no AMX-INT8" "$tmp/run.err"; then
    echo "FAIL: without AMX-INT8 the script must refuse with exit code 2 (got $rc)"
    exit 1
  fi
  echo "PASS (this CPU has no AMX-INT8: only the refusal was checked)"
  exit 0
fi
if [ "$rc" -ne 0 ]; then
  echo "FAIL: run.sh exited with $rc"
  exit 1
fi
grep -q "^ok," "$tmp/run.txt"
grep -qE "side by side, 1 rounds: farm [0-9.]+ ms, deployed [0-9.]+ ms: deployed/farm" "$tmp/run.txt"
grep -q "TF_KERNEL_NO_TILE_STATE" "$tmp/run/kernels.h"
echo "PASS"
