#!/usr/bin/env bash
# Runs one libFuzzer target for a few seconds on its seed corpus (new inputs go to a scratch
# directory, never into the tree). Fails on a crash, a leak, a timeout or an out-of-memory,
# and keeps the input that caused it in the test's undeclared outputs.
set -uo pipefail
bin="$1" corpus="$2" seconds="$3"
scratch="${TEST_TMPDIR:-$(mktemp -d)}/corpus"
artifacts="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}/"
mkdir -p "$scratch"
"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$artifacts" "$scratch" "$corpus" > "${TEST_TMPDIR:-/tmp}/fuzz.log" 2>&1
rc=$?
grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "${TEST_TMPDIR:-/tmp}/fuzz.log"
if [[ $rc -ne 0 ]]; then
  tail -n 40 "${TEST_TMPDIR:-/tmp}/fuzz.log"
  echo "FAIL: $(basename "$bin") exited $rc; the input is in $artifacts"
  exit 1
fi
echo "PASS: $(basename "$bin"), no crash in ${seconds}s"
