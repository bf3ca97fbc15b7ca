#!/usr/bin/env bash
# The aarch64 device server on an emulated board: deploy/arm64/build.sh cross-builds
# tunefarm_server and tunefarm_sandbox from the sources the BUILD graph names
# (//deploy/arm64:*_sources, in this test's runfiles), then, under qemu-user, the aarch64 server
# registers with a real x86-64 tracker beside an x86-64 `tunefarm server`, says it is emulated
# and which sandbox is in force, `tunefarm status` shows it as "aarch64(emu)"; then 32 trials of
# an aarch64 dense are tuned on it into a tuning log, `best` marks them emulated, `export` writes
# an aarch64 library, and the deploy example cross-built against it runs under qemu and checks
# the kernel's result. Needs deploy/setup.sh --arm64.
set -euo pipefail
source tests/test_lib.sh

bin=cli/tunefarm
tmp=${TEST_TMPDIR:-$(mktemp -d)}
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.out; do echo "== $f" >&2; cat "$f" >&2; done; exit 1; }

for tool in qemu-aarch64-static aarch64-linux-gnu-g++; do
  command -v "$tool" >/dev/null || fail "no $tool: run deploy/setup.sh --arm64"
done

start=$(date +%s)
deploy/arm64/build.sh --sources deploy/arm64 --out "$tmp/arm64" > "$tmp/build.out" 2>&1 ||
  fail "cross build"
echo "cross build: $(( $(date +%s) - start ))s"
grep -q "tunefarm_server$" "$tmp/build.out" || fail "build.sh did not report tunefarm_server"
file -b "$tmp/arm64/tunefarm_server" | grep -q "ARM aarch64" || fail "tunefarm_server is not aarch64"
file -b "$tmp/arm64/tunefarm_sandbox" | grep -q "ARM aarch64" || fail "tunefarm_sandbox is not aarch64"
cat "$tmp/build.out"

"$bin" tracker --host 127.0.0.1 --port 0 > "$tmp/tracker.out" 2>&1 &
pids+=($!)
port=$(listening_port "$tmp/tracker.out")
addr="127.0.0.1:$port"

"$bin" server --tracker "$addr" --key cpu-x86 --calibration_period_s 0 > "$tmp/x86.out" 2>&1 &
pids+=($!)
# No -L: Debian's multiarch libc6:arm64 provides /lib/ld-linux-aarch64.so.1 (deploy/arm64/README.md).
# --sandbox: under `bazel test` FindSandboxBinary would find the x86-64 one in the runfiles.
qemu-aarch64-static "$tmp/arm64/tunefarm_server" --tracker "$addr" --key arm64-qemu \
  --sandbox "$tmp/arm64/tunefarm_sandbox" --labels board=qemu --calibration_period_s 0 \
  > "$tmp/arm64.out" 2>&1 &
pids+=($!)

# Both registered: status lists both keys' workers (up to 60 s: the emulated one calibrates
# under qemu first).
ok=""
for _ in $(seq 1 120); do
  "$bin" status --tracker "$addr" > "$tmp/status.out" 2>&1 || true
  if grep -q "arm64-qemu .*aarch64(emu) .*emulated aarch64 (qemu-user on " "$tmp/status.out" &&
     grep -q " cpu-x86 .* x86_64 " "$tmp/status.out"; then
    ok=1
    break
  fi
  sleep 0.5
done
[[ -n "$ok" ]] || fail "status never showed the emulated board beside the x86 worker"
cat "$tmp/status.out"

grep -q "^tunefarm_server: running emulated: aarch64 under qemu-user" "$tmp/arm64.out" ||
  fail "the emulated server did not say it runs emulated"
grep -q "^tunefarm_server: sandbox: seccomp filter OFF (qemu-user refuses seccomp)" "$tmp/arm64.out" ||
  fail "the emulated server did not say which sandbox is in force"
grep -q "^tunefarm server: sandbox: seccomp filter on" "$tmp/x86.out" ||
  fail "the x86 server did not report its seccomp filter"

# Cross-target tuning end to end: dense compiled by LLVM for aarch64 and linked with the cross
# toolchain, each candidate loaded by the emulated board, checked there against a reference
# kernel it also runs, timed; every record lands in the tuning log.
target="llvm -mtriple=aarch64-linux-gnu -mattr=+neon"
tune_start=$(date +%s)
timeout -s KILL 600 "$bin" tune dense --shape 32,32,32 --tracker "$addr" --key arm64-qemu \
  --target "$target" --trials 32 --batch 8 --min_repeat_ms 1 --top_k 2 --db "$tmp/arm.db" \
  > "$tmp/tune.out" 2>&1 || fail "tuning on the emulated board"
echo "tune: 32 trials in $(( $(date +%s) - tune_start ))s"
grep -q "job job-1 succeeded after 32 trials" "$tmp/tune.out" || fail "tuning did not succeed"
# A measured time (not its GFLOP/s: printed to one decimal, an emulated parallel kernel on a
# loaded machine can show 0.0, as it once did in CI at 1.4 ms).
grep -E "^dense\[32,32,32\] +32 +[0-9.]+" "$tmp/tune.out" | awk '{ exit !($4 > 0) }' ||
  fail "no measured time for the aarch64 kernel"
grep "^dense" "$tmp/tune.out"
# Every measurement is in the log: the job's 32 trials (and its top-k re-measurements), each
# loaded, checked and timed on the board. (Before libgomp1:arm64 was installed, the board could
# not load the candidates with parallel loops: a third of them were load errors.)
"$bin" history --db "$tmp/arm.db" --job 1 > "$tmp/history.out" 2>&1 || fail "history"
read -r n_trials n_valid < <(grep -Eo "[0-9]+ trials, [0-9]+ valid" "$tmp/history.out" |
  head -1 | awk '{ print $1, $3 }')
(( ${n_trials:-0} >= 32 && ${n_valid:-0} == ${n_trials:-0} )) ||
  fail "the log holds ${n_trials:-no} records of the job, ${n_valid:-no} valid (want 32+, all" \
    "valid; a load error is usually a runtime library the board lacks, e.g. libgomp1:arm64)"
"$bin" status --tracker "$addr" > "$tmp/status.out" 2>&1
awk '$2 == "arm64-qemu" && $5 >= 32 { found = 1 } END { exit !found }' "$tmp/status.out" ||
  fail "the emulated board did not report the measurements"

# The same route for a conv2d template and a program of the tensor-expression language, whose
# space is generated: a few trials each, measured and checked on the board.
timeout -s KILL 300 "$bin" tune conv2d --shape 1,8,10,10,8,3,3,1,1 --tracker "$addr" \
  --key arm64-qemu --target "$target" --trials 4 --batch 4 --min_repeat_ms 1 --top_k 0 \
  --db "$tmp/arm.db" > "$tmp/tune_conv.out" 2>&1 || fail "conv2d on the emulated board"
grep -E "^conv2d\[1,8,10,10,8,3,3,1,1\] +4 +[0-9.]+" "$tmp/tune_conv.out" |
  awk '{ exit !($3 > 0) }' || fail "no measured GFLOP/s for the aarch64 conv2d"
timeout -s KILL 300 "$bin" tune --expr examples/programs/dense_bias_relu.te \
  --shape M=16,N=24,K=32 --tracker "$addr" --key arm64-qemu --target "$target" --trials 4 \
  --batch 4 --min_repeat_ms 1 --top_k 0 --db "$tmp/arm.db" > "$tmp/tune_expr.out" 2>&1 ||
  fail "a program on the emulated board"
grep -q "succeeded after 4 trials" "$tmp/tune_expr.out" || fail "the program's job did not succeed"
grep -E "^(conv2d|expr)" "$tmp/tune_conv.out" "$tmp/tune_expr.out"

# The log knows the timings are emulated; best says so.
"$bin" best --db "$tmp/arm.db" --workload 'dense:[32,32,32,"float32"]' --target "$target" \
  > "$tmp/best.out" 2>&1 || fail "best"
grep -q "arm64-qemu (emulated)" "$tmp/best.out" || fail "best does not mark the emulated timings"

# Export for the board: an aarch64 library and header.
mkdir -p "$tmp/deploy/include"
"$bin" export --db "$tmp/arm.db" --workload 'dense:[32,32,32,"float32"]' --target "$target" \
  -o "$tmp/deploy/libkernels.so" > "$tmp/export.out" 2>&1 || fail "export"
grep -q "timed on an emulated device" "$tmp/export.out" || fail "export does not say the timing is emulated"
file -b "$tmp/deploy/libkernels.so" | grep -q "ARM aarch64" || fail "the exported library is not aarch64"
test -s "$tmp/deploy/kernels.h" || fail "no header"

# The deploy example, cross-built against it, runs under qemu and checks the kernel against its
# own reference loop.
cp -r /usr/include/dlpack "$tmp/deploy/include/"
aarch64-linux-gnu-g++ -O2 -I"$tmp/deploy" -I"$tmp/deploy/include" -DM=32 -DN=32 -DK=32 \
  -DKERNEL=dense_32_32_32_float32 examples/deploy_dense/main.cc -L"$tmp/deploy" -lkernels \
  -Wl,-rpath,'$ORIGIN' -o "$tmp/deploy/dense_app" > "$tmp/app_build.out" 2>&1 ||
  fail "cross-building the deploy example"
file -b "$tmp/deploy/dense_app" | grep -q "ARM aarch64" || fail "the example is not aarch64"
timeout -s KILL 120 qemu-aarch64-static "$tmp/deploy/dense_app" > "$tmp/app.out" 2>&1 ||
  fail "the deployed kernel under qemu"
grep -q ": ok," "$tmp/app.out" || fail "the deployed kernel's result is wrong"
cat "$tmp/app.out"
echo "whole test: $(( $(date +%s) - start ))s"
echo "ok: aarch64 server under qemu-user registered, shown as emulated, tuned 32 aarch64 trials, exported, deployed and checked under qemu"
