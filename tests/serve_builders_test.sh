#!/usr/bin/env bash
# The job service with builder workers, as real processes: a tracker, a device server, a
# builder (`tunefarm server --role builder`) and `tunefarm serve --tracker ... --builders KEY`.
# A job submitted with `tunefarm tune --service` has its candidates compiled by the builder
# (status shows the builder's completed builds) and measured on the device, and succeeds.
source tests/test_lib.sh
set -uo pipefail
bin="$PWD/cli/tunefarm"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; wait $p 2>/dev/null; done' EXIT
fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/*.out; do echo "== $f" >&2; tail -20 "$f" >&2; done
  exit 1
}

"$bin" tracker --host 127.0.0.1 --port 0 > "$tmp/tracker.out" 2>&1 &
pids+=($!)
tport=$(listening_port "$tmp/tracker.out") || exit 1
tracker="127.0.0.1:$tport"
"$bin" server --tracker "$tracker" --key cpu-b --worker_id dev1 --calibration_period_s 0 \
  > "$tmp/device.out" 2>&1 &
pids+=($!)
"$bin" server --role builder --tracker "$tracker" --key builders --worker_id builder1 \
  --build_threads 1 > "$tmp/builder.out" 2>&1 &
pids+=($!)
ok=""
for _ in $(seq 1 100); do
  "$bin" status --tracker "$tracker" > "$tmp/status.out" 2>&1
  if grep -q "^builder1 " "$tmp/status.out" && grep -q "^dev1 " "$tmp/status.out"; then
    ok=1
    break
  fi
  sleep 0.1
done
[[ -n "$ok" ]] || fail "device and builder never both registered"

"$bin" serve --host 127.0.0.1 --port 0 --tracker "$tracker" --key cpu-b --builders builders \
  --db "$tmp/jobs.db" --min_repeat_ms 1 > "$tmp/serve.out" 2>&1 &
pids+=($!)
sport=$(listening_port "$tmp/serve.out") || exit 1
timeout -s KILL 300 "$bin" tune dense --shape 32,32,32 --trials 8 --batch 4 --top_k 0 \
  --strategy random --service "127.0.0.1:$sport" > "$tmp/tune.out" 2>&1 || fail "tune --service"
grep -q "job-1 succeeded after 8 trials" "$tmp/tune.out" || fail "the job did not succeed"
"$bin" status --tracker "$tracker" > "$tmp/status.out" 2>&1
# Columns: WORKER KEY STATE LEASED DONE ...: the builder compiled every candidate, the device
# measured them.
awk '$1 == "builder1" && $5 >= 8 { found = 1 } END { exit !found }' "$tmp/status.out" ||
  fail "the builder did not build the job's candidates"
awk '$1 == "dev1" && $5 >= 8 { found = 1 } END { exit !found }' "$tmp/status.out" ||
  fail "the device did not measure them"
cat "$tmp/status.out"
echo "PASS"
