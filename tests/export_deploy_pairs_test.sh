#!/usr/bin/env bash
# examples/deploy_pairs/run.sh end to end at a small shape: dense_pairs.te tuned, exported and
# called by the application, which reorders a plain [N][K] weight into the pairs layout itself
# and checks every output against a plain loop; the side-by-side round (tunefarm measure of the
# same config, then the application) reports. Then a shape the program refuses (K odd) must fail
# with the language's message, not run.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
TUNEFARM="$PWD/cli/tunefarm" SHAPE=24,16,66 TRIALS=8 ROUNDS=1 OUT="$tmp/run" \
  bash examples/deploy_pairs/run.sh > "$tmp/run.txt" 2> "$tmp/run.err" ||
  { cat "$tmp/run.txt" "$tmp/run.err"; echo "FAIL: run.sh"; exit 1; }
cat "$tmp/run.txt"
grep -q "^ok," "$tmp/run.txt"
line="side by side, 1 rounds: farm [0-9.]+ ms, deployed [0-9.]+ ms: deployed/farm"
grep -qE "^expr:dense_pairs:[0-9a-f]+:.*$line" "$tmp/run.txt"
set +e
TUNEFARM="$PWD/cli/tunefarm" SHAPE=24,16,65 TRIALS=8 ROUNDS=1 OUT="$tmp/odd" \
  bash examples/deploy_pairs/run.sh > "$tmp/odd.txt" 2>&1
rc=$?
set -e
if [ "$rc" -eq 0 ] || ! grep -q "not a whole number" "$tmp/odd.txt"; then
  cat "$tmp/odd.txt"
  echo "FAIL: K = 65 must be refused (got exit code $rc)"
  exit 1
fi
echo "PASS"
