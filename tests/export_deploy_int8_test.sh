#!/usr/bin/env bash
# examples/deploy_int8/run.sh end to end at a small shape: the int8 dense kernel this CPU runs
# best (the AMX template, the VNNI program, or the AVX2 program with its int16 weight pack) tuned,
# exported and called by the application, which checks every int32 output against a plain
# loop; the side-by-side round (tunefarm measure of the same config, then the application)
# reports. A CPU without AVX2 cannot run any of them: the script must say so (exit 2), and the
# test then checks only that refusal.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
set +e
TUNEFARM="$PWD/cli/tunefarm" SHAPE=48,64,192 TRIALS=8 ROUNDS=1 OUT="$tmp/run" \
  bash examples/deploy_int8/run.sh > "$tmp/run.txt" 2> "$tmp/run.err"
rc=$?
set -e
cat "$tmp/run.txt" "$tmp/run.err"
if ! grep -qw avx2 /proc/cpuinfo; then
  if [ "$rc" -ne 2 ] || ! grep -q "no int8 kernel here" "$tmp/run.err"; then
    echo "FAIL: without AVX2 the script must refuse with exit code 2 (got $rc)"
    exit 1
  fi
  echo "PASS (this CPU has no AVX2: only the refusal was checked)"
  exit 0
fi
if [ "$rc" -ne 0 ]; then
  echo "FAIL: run.sh exited with $rc"
  exit 1
fi
grep -q "^ok," "$tmp/run.txt"
grep -qE "side by side, 1 rounds: farm [0-9.]+ ms, deployed [0-9.]+ ms: deployed/farm" "$tmp/run.txt"
if grep -qw amx_int8 /proc/cpuinfo; then
  grep -q "^int8 kernel for this CPU: amx (dense_u8s8_amx:" "$tmp/run.txt"
  grep -q "TF_KERNEL_NO_TILE_STATE" "$tmp/run/kernels.h"
elif grep -qw avx512_vnni /proc/cpuinfo; then
  grep -q "^int8 kernel for this CPU: vnni (expr:dense_u8s8_vnni:" "$tmp/run.txt"
else
  # The program's weight is widened by a pack kernel the library exports and the app runs.
  grep -q "^int8 kernel for this CPU: avx2 (expr:dense_u8s8_avx2:" "$tmp/run.txt"
  grep -q "_pack_W(DLTensor" "$tmp/run/kernels.h"
fi
echo "PASS"
