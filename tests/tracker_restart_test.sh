#!/usr/bin/env bash
# A job survives its tracker: `tunefarm tune --tracker` runs against a real tracker process and
# two real server processes; mid-run the tracker is SIGKILLed and started again on the same
# port. The job must exit 0 on its own, with every trial in the tuning log exactly once.
source tests/test_lib.sh
set -uo pipefail
bin="$PWD/cli/tunefarm"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
trials=48
top_k=5  # the winner's top 5 are measured again, in 3 rounds alternating servers:
rounds=3  # 15 more records
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

start_tracker() {  # start_tracker PORT OUTFILE
  "$bin" tracker --host 127.0.0.1 --port "$1" --keys cpu-restart > "$2" 2>&1 &
  tracker_pid=$!
  pids+=("$tracker_pid")
}

start_tracker 0 "$tmp/tracker1.out"
port=$(listening_port "$tmp/tracker1.out") || exit 1
for i in 1 2; do
  "$bin" server --tracker "127.0.0.1:$port" --key cpu-restart --worker_id "srv-$i" \
    --calibration_period_s 0 > "$tmp/server$i.out" 2>&1 &
  pids+=("$!")
done

# Both servers registered before the job starts (a job needs a live device to be accepted).
live=0
for _ in $(seq 1 200); do
  live=$("$bin" status --tracker "127.0.0.1:$port" 2>/dev/null | awk '$1 == "cpu-restart" {print $2}')
  [[ "${live:-0}" -ge 2 ]] && break
  sleep 0.1
done
[[ "${live:-0}" -ge 2 ]] || { echo "servers did not register"; cat "$tmp"/server*.out; exit 1; }
"$bin" tune dense --shape 64,64,64 --trials "$trials" --batch 4 --strategy random --top_k "$top_k" \
  --tracker "127.0.0.1:$port" --key cpu-restart --db "$tmp/log.db" \
  > "$tmp/tune.out" 2> "$tmp/tune.err" &
tune_pid=$!

count_records() {
  /usr/bin/python3 - "$tmp/log.db" <<'PY' 2>/dev/null || echo 0
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM records").fetchone()[0])
PY
}
# Kill the tracker once the job has recorded a few rounds.
for _ in $(seq 1 600); do
  [[ $(count_records) -ge 8 ]] && break
  sleep 0.1
done
before=$(count_records)
echo "records before the tracker's SIGKILL: $before"
kill -9 "$tracker_pid"
wait "$tracker_pid" 2>/dev/null
sleep 2
start_tracker "$port" "$tmp/tracker2.out"

wait "$tune_pid"
rc=$?
echo "tune exit status: $rc"
fails=0
[[ $rc -eq 0 ]] || { echo "FAIL: tune exited $rc"; cat "$tmp/tune.err"; fails=1; }
[[ $before -lt $trials ]] || { echo "FAIL: the job finished before the tracker was killed"; fails=1; }
read -r total distinct < <(/usr/bin/python3 - "$tmp/log.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(*db.execute("SELECT COUNT(*), COUNT(DISTINCT config_index) FROM records").fetchone())
PY
)
echo "records: $total, distinct configs: $distinct (trials: $trials, re-measured: $top_k x $rounds)"
[[ $distinct -eq $trials ]] || { echo "FAIL: $distinct configs logged for $trials trials"; fails=1; }
[[ $total -eq $((trials + top_k * rounds)) ]] || {
  echo "FAIL: $total records, want $trials trials + $top_k x $rounds re-measurements"; fails=1; }
[[ $fails -eq 0 ]] || { tail -n 20 "$tmp/tune.out" "$tmp/server1.out"; exit 1; }
echo "ok: the job survived the tracker's SIGKILL and restart; every trial is logged once"
