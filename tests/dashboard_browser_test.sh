#!/usr/bin/env bash
# The dashboard, /metrics and the health service of real processes, seen by real clients:
#   * a `tunefarm tracker --http 0` with one CPU worker: health SERVING, /metrics parsed by the
#     Prometheus project's own Python parser (python3-prometheus-client), its page in Chromium;
#   * a `tunefarm serve --http 0` (embedded local farm) after a small tuning job: Debian's
#     Chromium, headless, loads the overview and the job's page; the test asserts the DOM (the
#     devices listed, the job's row and curve drawn) and saves screenshots (bazel-testlogs/
#     tests/dashboard_browser_test/test.outputs/).
source tests/test_lib.sh
set -uo pipefail
bin="$PWD/cli/tunefarm"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$tmp}"
py=/usr/bin/python3
fails=0
check() {  # check DESCRIPTION COMMAND...
  local what="$1"; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
for tool in chromium "$py"; do
  command -v "$tool" >/dev/null || { echo "missing $tool: run deploy/setup.sh --tests" >&2; exit 1; }
done

# chrome ARGS... URL: headless Chromium, bounded. The page polls the API, so the virtual-time
# budget lets its first fetches finish before the DOM is dumped or the picture taken.
chrome() {
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --user-data-dir="$tmp/chrome" --hide-scrollbars --window-size=1280,900 \
    --virtual-time-budget=4000 "$@" 2>>"$tmp/chrome.err"
}

# stop PID...: SIGTERM, then SIGKILL after 10 s: a process that does not stop fails the test
# through its checks, never by hanging it.
stop() {
  kill "$@" 2>/dev/null
  for _ in $(seq 1 100); do
    local alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && break
    sleep 0.1
  done
  kill -KILL "$@" 2>/dev/null
  for p in "$@"; do wait "$p" 2>/dev/null; done
}
pids=()
trap 'kill -CONT "${pids[@]}" 2>/dev/null; stop "${pids[@]}"' EXIT

# ---- The tracker, with one real CPU worker. The noise gate is off (--noise_threshold 0): on
# a loaded 2-core CI machine the worker's start-up calibration can read as noisy, and the
# checks below expect it listed idle (the gate is tested in tracker/tracker_core_test).
"$bin" tracker --host 127.0.0.1 --port 0 --http 0 --noise_threshold 0 \
  > "$tmp/tracker.out" 2> "$tmp/tracker.err" &
pids+=($!)
tport=$(listening_port "$tmp/tracker.out") || exit 1
thttp=$(http_port "$tmp/tracker.out") || exit 1
"$bin" server --tracker "127.0.0.1:$tport" --key cpu-dash --worker_id dash-w1 \
  > "$tmp/server.out" 2> "$tmp/server.err" &
pids+=($!)
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$thttp/api/farm" | grep -q '"workerId":"dash-w1"' && break
  sleep 0.1
done
check "tracker health SERVING" "$bin" health "127.0.0.1:$tport"
curl -sf "http://127.0.0.1:$thttp/metrics" > "$tmp/tracker.metrics"
check "tracker /metrics parses and has the tracker's families" "$py" - "$tmp/tracker.metrics" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
families = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
need = ["tunefarm_queue_depth", "tunefarm_workers", "tunefarm_dispatch_latency_seconds",
        "tunefarm_measurements", "tunefarm_results_per_second"]
missing = [n for n in need if n not in families]
assert not missing, f"missing families {missing} in {sorted(families)}"
idle = [s for s in families["tunefarm_workers"].samples
        if s.labels == {"device_key": "cpu-dash", "state": "idle"}]
assert idle and idle[0].value == 1, families["tunefarm_workers"].samples
assert families["tunefarm_dispatch_latency_seconds"].type == "histogram"
PY
chrome --dump-dom "http://127.0.0.1:$thttp/" > "$tmp/tracker.html"
check "tracker page lists the worker" grep -q 'class="device" data-key="cpu-dash"' "$tmp/tracker.html"
check "tracker page has no jobs section" bash -c "! grep -q 'id=\"jobs\"' '$tmp/tracker.html'"
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$thttp/api/jobs" > "$tmp/code"
check "tracker /api/jobs is 501 (the tracker runs no jobs)" grep -qx 501 "$tmp/code"

# ---- The job service with its embedded farm, after a small job.
"$bin" serve --host 127.0.0.1 --port 0 --http 0 --workers 1 --db "$tmp/jobs.db" \
  --min_repeat_ms 1 > "$tmp/serve.out" 2> "$tmp/serve.err" &
pids+=($!)
sport=$(listening_port "$tmp/serve.out") || exit 1
shttp=$(http_port "$tmp/serve.out") || exit 1
check "job service health SERVING" "$bin" health "127.0.0.1:$sport"
"$bin" tune dense --shape 32,32,32 --trials 12 --batch 4 --strategy random \
  --service "127.0.0.1:$sport" > "$tmp/tune.out" 2> "$tmp/tune.err"
check "the job ran" grep -q "job-1 succeeded after" "$tmp/tune.out"

chrome --dump-dom "http://127.0.0.1:$shttp/" > "$tmp/serve.html"
check "overview lists the embedded farm's device" grep -q 'class="device" data-key="cpu-local"' "$tmp/serve.html"
check "overview lists the job" grep -q 'class="job" data-job="job-1"' "$tmp/serve.html"
check "overview draws the job's curve" grep -q '<polyline class="best"' "$tmp/serve.html"
check "overview shows the best config of dense" grep -q 'dense \[32,32,32,"float32"\]' "$tmp/serve.html"
check "overview gives the best config's fraction of the core's peak" grep -qE \
  '<tr class="best-row">(<td[^>]*>[^<]*</td>){4}<td class="num">[0-9]+ %</td>' "$tmp/serve.html"
check "overview names the peak it measured" grep -qE \
  'peak: one core of this host, [0-9]+ GFLOP/s' "$tmp/serve.html"
check "overview lists the device's queue" grep -qE \
  '<tr class="queue"><td>cpu-local</td>(<td class="num">[0-9]+</td>){4}</tr>' "$tmp/serve.html"
check "overview gives the device's measurements per second" grep -qE \
  '<tr class="device" data-key="cpu-local"[^>]*><td>cpu-local</td><td>[^<]*</td><td><span[^>]*>[a-z]+</span></td><td class="num">[0-9.]+</td>' \
  "$tmp/serve.html"
chrome --screenshot="$out/dashboard.png" "http://127.0.0.1:$shttp/"
check "overview screenshot saved" test -s "$out/dashboard.png"

chrome --dump-dom "http://127.0.0.1:$shttp/jobs/job-1" > "$tmp/job.html"
check "job page shows the job" grep -q 'id="job" data-job="job-1" data-state="succeeded"' "$tmp/job.html"
check "job page draws the curve with its trial dots" bash -c \
  "grep -q '<polyline class=\"best\"' '$tmp/job.html' && grep -q '<circle class=\"trial\"' '$tmp/job.html'"
chrome --screenshot="$out/dashboard_job.png" "http://127.0.0.1:$shttp/jobs/job-1"
check "job page screenshot saved" test -s "$out/dashboard_job.png"
chrome --dump-dom "http://127.0.0.1:$shttp/jobs/job-404" > "$tmp/missing.html"
check "an unknown job's page says NOT_FOUND" grep -q 'NOT_FOUND' "$tmp/missing.html"

curl -sf "http://127.0.0.1:$shttp/metrics" > "$tmp/serve.metrics"
check "service /metrics parses and has jobs, log latency and farm families" "$py" - "$tmp/serve.metrics" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
families = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
need = ["tunefarm_jobs", "tunefarm_tuning_log_write_seconds", "tunefarm_queue_depth",
        "tunefarm_workers", "tunefarm_dispatch_latency_seconds", "tunefarm_measurements"]
missing = [n for n in need if n not in families]
assert not missing, f"missing families {missing} in {sorted(families)}"
done = [s for s in families["tunefarm_jobs"].samples if s.labels == {"state": "succeeded"}]
assert done and done[0].value == 1, families["tunefarm_jobs"].samples
count = [s for s in families["tunefarm_tuning_log_write_seconds"].samples
         if s.name.endswith("_count")]
assert count and count[0].value >= 12, count
ok = [s for s in families["tunefarm_measurements"].samples
      if s.labels.get("error_class") == "error_none"]
assert ok and ok[0].value >= 12, families["tunefarm_measurements"].samples
PY

# Draining: with work held by a stopped worker, SIGTERM leaves the tracker draining, and its
# health says NOT_SERVING (so readiness probes take it out of its Service); once the worker
# runs again and finishes the work, the tracker stops, drained.
kill -STOP "${pids[1]}"
timeout -k 10 30 "$bin" tune dense --shape 16,16,16 --trials 2 --batch 2 --strategy random \
  --top_k 0 --tracker "127.0.0.1:$tport" --key cpu-dash --db "$tmp/drain.db" \
  > "$tmp/drain_tune.out" 2>&1 &
drain_tune=$!
for _ in $(seq 1 100); do
  "$bin" status --tracker "127.0.0.1:$tport" 2>/dev/null |
    awk '$1 == "cpu-dash" && $3 + $4 > 0 { found = 1 } END { exit !found }' && break
  sleep 0.1
done
kill -TERM "${pids[0]}"
draining=""
for _ in $(seq 1 50); do
  if ! "$bin" health "127.0.0.1:$tport" > "$tmp/health.out" 2>&1 &&
     grep -q NOT_SERVING "$tmp/health.out"; then draining=1; break; fi
  sleep 0.1
done
check "tracker health NOT_SERVING while it drains" test -n "$draining"
kill -CONT "${pids[1]}"
# The tracker gives its drain up to 30 s (--drain_timeout_s); the worker finishes the held
# request in well under that.
for _ in $(seq 1 400); do kill -0 "${pids[0]}" 2>/dev/null || break; sleep 0.1; done
check "tracker stopped after draining the held work" grep -q "stopped (drained)" "$tmp/tracker.out"
stop "$drain_tune"

if [[ $fails -gt 0 ]]; then
  echo "--- tracker.out"; tail -5 "$tmp/tracker.out"
  echo "--- tracker.err"; tail -20 "$tmp/tracker.err"
  echo "--- server.err"; tail -10 "$tmp/server.err"
  echo "--- drain_tune.out"; tail -5 "$tmp/drain_tune.out"
  echo "--- serve.err"; tail -20 "$tmp/serve.err"
  echo "--- chrome.err"; tail -5 "$tmp/chrome.err"
  exit 1
fi
echo "PASS"
