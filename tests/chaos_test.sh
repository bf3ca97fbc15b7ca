#!/usr/bin/env bash
# The short chaos run (bench/chaos.cc --quick): a tracker, three servers and a job service, each
# in its own network namespace where the machine allows it, run a 60-trial job while every
# fault kind is injected once. The job must finish by itself with every trial logged once.
set -uo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/chaos.out"
bench/chaos --quick --seed 3 2>&1 | tee "$out"
result=$(grep '^RESULT ' "$out" | tail -1)
[[ -n "$result" ]] || { echo "FAIL: no RESULT line"; exit 1; }
value() { sed -nE "s/.* $1=([^ ]+).*/\1/p" <<<"$result"; }
fails=0
want() {  # want KEY VALUE
  if [[ "$(value "$1")" != "$2" ]]; then echo "FAIL: $1=$(value "$1"), want $2"; fails=1; fi
}
want jobs_completed 1
want records_lost 0
want duplicates 0
want user_actions 0
# Every fault kind, except the two partitions where namespaces are refused (loopback).
if [[ "$(value network)" == netns ]]; then want fault_kinds 6; else want fault_kinds 4; fi
[[ $fails -eq 0 ]] && echo "PASS ($(value network))"
exit $fails
