#!/usr/bin/env bash
# The job service from a second process: `tunefarm serve` runs in the background; jobs are
# submitted, watched, listed and cancelled with `tunefarm tune --service`, `jobs`, `cancel`;
# bad job specs come back as InvalidArgument (exit 2) with a message.
source tests/test_lib.sh
set -uo pipefail
bin="$PWD/cli/tunefarm"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
check() {  # check DESCRIPTION COMMAND...
  local what="$1"; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}

"$bin" serve --port 0 --host 127.0.0.1 --workers 1 --db "$tmp/jobs.db" --min_repeat_ms 1 \
  > "$tmp/serve.out" 2> "$tmp/serve.err" &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null; wait $serve_pid 2>/dev/null' EXIT
port=$(listening_port "$tmp/serve.out") || exit 1
svc="127.0.0.1:$port"
echo "job service at $svc"

# A small job, submitted and watched to the end.
"$bin" tune dense --shape 32,32,32 --trials 8 --batch 4 --strategy random --service "$svc" \
  > "$tmp/tune.out" 2> "$tmp/tune.err"
check "tune --service exits 0" test $? -eq 0
check "tune --service succeeded" grep -q "job-1 succeeded after" "$tmp/tune.out"

# A long job, cancelled from a third process while it runs.
"$bin" tune dense --shape 64,64,64 --trials 100000 --batch 2 --strategy random \
  --service "$svc" > "$tmp/long.out" 2> "$tmp/long.err" &
long_pid=$!
for _ in $(seq 1 100); do
  "$bin" jobs --service "$svc" 2>/dev/null | grep -q "job-2 *running" && break
  sleep 0.1
done
"$bin" jobs --service "$svc" > "$tmp/jobs.out"
check "jobs lists the running job" grep -q "job-2 *running" "$tmp/jobs.out"
"$bin" cancel --service "$svc" job-2 > "$tmp/cancel.out"
check "cancel answers" grep -q "cancelling job-2" "$tmp/cancel.out"
wait $long_pid
check "cancelled job reports cancelled" grep -q "job-2 cancelled" "$tmp/long.out"
"$bin" jobs --service "$svc" > "$tmp/jobs2.out"
check "jobs shows the cancellation" grep -q "job-2 *cancelled" "$tmp/jobs2.out"

# Bad specs: InvalidArgument from the service, exit code 2.
"$bin" tune dense --shape 8,8,8 --trials 4 --service "$svc" --key gpu-nowhere 2> "$tmp/bad1.err"
check "unknown device key -> exit 2" test $? -eq 2
check "unknown device key message" grep -q "no live device with key 'gpu-nowhere'" "$tmp/bad1.err"
"$bin" tune dense --shape 8,8,8 --trials 4 --strategy annealing --service "$svc" 2> "$tmp/bad2.err"
check "unknown strategy -> exit 2" test $? -eq 2
"$bin" cancel --service "$svc" job-99 2> "$tmp/bad3.err"
check "cancel unknown job -> not found" grep -q "NOT_FOUND" "$tmp/bad3.err"

[[ $fails -eq 0 ]] || { cat "$tmp/serve.err"; exit 1; }
echo "PASS"
