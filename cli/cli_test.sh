#!/usr/bin/env bash
# Exercises the dispatcher of the real binary: help, exit codes, per-subcommand flags.
set -u
bin="cli/tunefarm"
fails=0
expect() {  # expect CODE PATTERN -- ARGS...
  local want_code="$1" pattern="$2"; shift 3
  local out code
  out=$("$bin" "$@" 2>&1); code=$?
  if [[ "$code" != "$want_code" ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: tunefarm $* -> exit $code (want $want_code), output:"; echo "$out"
    fails=$((fails + 1))
  else
    echo "ok: tunefarm $* -> $code"
  fi
}
expect 0 "Commands:" -- --help
expect 0 "version" -- help
expect 2 "Usage: tunefarm <command>" --
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 0 "^tunefarm [0-9]+\.[0-9]+\.[0-9]+" -- version
expect 0 "LLVM +16" -- version
expect 0 "--short" -- version --help
expect 2 "unknown flag '--bogus'" -- version --bogus
expect 0 "^tunefarm [0-9.]+$" -- version --short
expect 2 "takes no arguments" -- version extra
for sub in tune serve jobs watch cancel tracker server status best history export measure import-log \
  export-log; do
  expect 0 "Usage: tunefarm $sub" -- "$sub" --help
done
expect 2 "unknown template 'conv9d'" -- tune conv9d --shape 1,2,3
expect 2 "must be positive" -- tune dense --shape 1,-2,3
expect 2 "takes 3 shape arguments" -- tune dense --shape 1,2
expect 2 "--shape is required" -- tune dense
expect 2 "--trials must be in \[1, 1e\+06\], got 0" -- tune dense --shape 4,4,4 --trials 0
expect 2 "--batch must be in \[1, 1024\], got -3" -- tune dense --shape 4,4,4 --batch=-3
expect 2 "--max_message_mb must be in \[1, 1024\], got 4096" -- tracker --max_message_mb 4096
expect 2 "--heartbeat_timeout_s must be in" -- tracker --heartbeat_timeout_s=-1
expect 2 "--port must be in \[-1, 65535\], got 70000" -- tracker --port 70000
expect 2 "--memory_limit_mb must be in" -- server --memory_limit_mb 0 --key k --tracker 127.0.0.1:1
expect 2 "--calibration_period_s must be in" -- server --calibration_period_s nan --key k --tracker 127.0.0.1:1
expect 2 "unknown target kind" -- tune dense --shape 4,4,4 --target opencl
expect 2 "--service is required" -- jobs
expect 0 "--key" -- server --help
expect 0 "--token" -- tracker --help
expect 2 "--tracker HOST:PORT and --key KEY are required" -- server
expect 2 "unknown flag '--key'" -- tracker --key x
expect 1 "tunefarm status: 127.0.0.1:1" -- status --tracker 127.0.0.1:1
# GPU workers: without a usable CUDA driver, a clear one-line error and the failure code (the
# override makes this hold on GPU machines too); a malformed --device is a usage error.
TUNEFARM_LIBCUDA=/nonexistent/libcuda.so.1 expect 1 "^tunefarm server: no CUDA device: " -- \
  server --device cuda:0 --key k --tracker 127.0.0.1:1
expect 2 "bad device 'bogus'" -- server --device bogus --key k --tracker 127.0.0.1:1
expect 2 "--role is device or builder" -- server --role bogus --key k --tracker 127.0.0.1:1
# tune with a cuda target measures on the local GPU: without one, a clear error and exit 1.
TUNEFARM_LIBCUDA=/nonexistent/libcuda.so.1 expect 1 "no CUDA device" -- \
  tune dense --shape 64,64,64 --target "cuda -arch=sm_90" --trials 4
expect 2 "needs a cuda target" -- tune dense_tensorcore --shape 64,64,64 --dtype float16 --trials 4
expect 2 "multiples of 16" -- \
  tune dense_tensorcore --shape 64,64,60 --dtype float16 --target "cuda -arch=sm_90" --trials 4
expect 2 "bad device 'cuda:'" -- server --device cuda: --key k --tracker 127.0.0.1:1
expect 0 "--device" -- server --help
expect 2 "unknown flag '--device'" -- tracker --device cpu
# This machine's own driver: no GPU means exit 1 with "no CUDA device"; with a GPU the server
# starts and keeps dialling the unreachable tracker until `timeout` stops it.
out=$(timeout 5 "$bin" server --device cuda:0 --key k --tracker 127.0.0.1:1 2>&1); code=$?
if [[ $code == 1 ]] && grep -q "no CUDA device" <<<"$out"; then
  echo "ok: tunefarm server --device cuda:0 -> 1 (no GPU here)"
elif [[ $code == 124 ]] && grep -q "cuda:0: " <<<"$out"; then
  echo "ok: tunefarm server --device cuda:0 started on this machine's GPU"
else
  echo "FAIL: tunefarm server --device cuda:0 -> exit $code, output:"; echo "$out"
  fails=$((fails + 1))
fi

# Tuning-log commands (issue 7) on a small AutoTVM log: 2 valid, 1 failed, 1 unknown, 1 bad.
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
line() {  # line TASK INDEX COSTS ERRNO
  printf '{"input": ["llvm -mcpu=znver4", "%s", [["TENSOR", [1024, 1024], "float32"], ["TENSOR", [1024, 1024], "float32"], null, "float32"], {}], "config": {"index": %s, "code_hash": null, "entity": [["tile_x", "sp", [-1, 32]]]}, "result": [%s, %s, 1.5, 1700000000.5], "version": 0.2, "tvm_version": "0.8.0", "tunefarm": {"job_id": 1}}\n' "$@"
}
{
  line dense_nopack.x86 1 "[0.02]" 0
  line dense_nopack.x86 2 "[0.01]" 0
  line dense_nopack.x86 3 "[1e9]" 4
  line softmax.x86 4 "[0.01]" 0
  echo '{"input": truncated'
} >"$tmp/tvm.log"
expect 0 "imported 3 of 5 lines .*1 malformed, 1 unknown template" -- import-log --db "$tmp/t.db" "$tmp/tvm.log"
expect 0 "#-3 .*tile_x" -- best --db "$tmp/t.db" -k 3
expect 0 "214\.7" -- best --db "$tmp/t.db" --workload dense --target "llvm -mcpu=znver4"
expect 0 "NEAREST" -- best --db "$tmp/t.db" --workload 'dense:[1000,1024,1024,"float32"]' --target "llvm -mcpu=znver4"
expect 0 "wrote .*curve.svg" -- history --db "$tmp/t.db" --job 1 --plot "$tmp/curve.svg"
grep -q "<polyline" "$tmp/curve.svg" || { echo "FAIL: no curve in curve.svg"; fails=$((fails + 1)); }
expect 1 "job 99 has no records" -- history --db "$tmp/t.db" --job 99
expect 0 "wrote 3 records" -- export-log --db "$tmp/t.db" "$tmp/out.log"
expect 0 "imported 3 of 3 lines" -- import-log --db "$tmp/t2.db" "$tmp/out.log"
expect 1 "unable to open" -- best --db "$tmp/missing.db"
expect 2 "--db is required" -- best
expect 2 "unknown flag '--job'" -- best --db "$tmp/t.db" --job 1
expect 2 "expected one FILE" -- import-log --db "$tmp/t.db"
# measure: a log's best config measured again on the embedded farm, each run recorded.
expect 0 "succeeded after 4 trials" -- tune dense --shape 32,32,32 --trials 4 --batch 4 \
  --strategy random --top_k 0 --min_repeat_ms 1 --db "$tmp/m.db"
expect 0 "median [0-9.]+ ms \([0-9.]+ GFLOP/s\) over 3 runs; the log's [0-9.]+ ms \(one measurement\)" -- \
  measure --db "$tmp/m.db" --workload 'dense:[32,32,32,"float32"]' --runs 3 --min_repeat_ms 1
expect 0 "job 2 'measure dense .*': 3 trials, 3 valid" -- history --db "$tmp/m.db" --job 2
# The workload as best prints it (TEMPLATE|ARGS), timed cold (a flush before every run).
expect 0 "median [0-9.]+ ms .* over 2 runs" -- measure --db "$tmp/m.db" \
  --workload 'dense|[32,32,32,"float32"]' --runs 2 --flush_cache
expect 2 "--workload wants one TEMPLATE:ARGS" -- measure --db "$tmp/m.db"
expect 2 "--runs must be 1-100" -- measure --db "$tmp/m.db" --runs 101 \
  --workload 'dense:[32,32,32,"float32"]'
expect 1 "NOT_FOUND" -- measure --db "$tmp/m.db" --workload 'dense:[64,64,64,"float32"]'
[[ $fails == 0 ]] || { echo "$fails failures"; exit 1; }
