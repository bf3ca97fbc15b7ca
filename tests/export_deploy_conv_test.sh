#!/usr/bin/env bash
# examples/deploy_conv/run.sh end to end at a small shape (partial Winograd tiles): the exported
# kernel and its filter transform, called by the application, give the direct convolution, and
# the side-by-side round (tunefarm measure of the same config, then the application) reports.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
TUNEFARM="$PWD/cli/tunefarm" SHAPE=C=1,H=9,W=7,F=2 TRIALS=8 ROUNDS=1 OUT="$tmp/run" \
  bash examples/deploy_conv/run.sh | tee "$tmp/run.txt"
grep -q "^ok," "$tmp/run.txt"
grep -qE "side by side, 1 rounds: farm [0-9.]+ ms, deployed [0-9.]+ ms: deployed/farm" "$tmp/run.txt"
grep -q "TF_KERNEL_ALIGNMENT 64" "$tmp/run/kernels.h"
grep -q "_pack_Wt" "$tmp/run/kernels.h"
echo "PASS"
