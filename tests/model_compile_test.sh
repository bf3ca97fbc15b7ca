#!/usr/bin/env bash
# A small CNN from PyTorch (tests/models/make_model.py: conv + batch norm + ReLU, max and average
# pooling, residual adds, a strided 1×1 downsample, depthwise + ReLU6, 16 and 24 channels,
# flatten and a linear layer) through the whole model flow: import-model, compile untuned (warned
# about, still correct), tune-model on the embedded local farm, compile from the log, run and
# compare with PyTorch's output. Then the inputs that must fail with a clear message.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
T="$PWD/cli/tunefarm"
PY=/usr/bin/python3
source tests/test_lib.sh

$PY tests/models/make_model.py small_cnn "$tmp" 2>/dev/null
$PY tests/models/make_onnx_cases.py "$tmp"
m="$tmp/small_cnn"

"$T" import-model "$m.onnx" | tee "$tmp/import.txt"
grep -q "conv_add_relu" "$tmp/import.txt"
grep -q "to_nchw3c" "$tmp/import.txt"
grep -q "depthwise" "$tmp/import.txt"
grep -q "13 fused groups (12 kernels)" "$tmp/import.txt"

# Untuned: every group warned about, the outputs still PyTorch's.
"$T" compile "$m.onnx" -o "$tmp/untuned.so" 2>"$tmp/warn.txt"
grep -q "warning: g1 conv_relu has no tuned record" "$tmp/warn.txt"
"$T" run "$tmp/untuned.so" --input "$m.input.bin" --expect "$m.expected.bin" --runs 2

# Tuned on the embedded local farm: every task (12 groups, 2 of them also by Winograd and the
# 1×1 32→24 one also with its filter in pairs of inputs: 15 tasks) gets a first round of 4.
"$T" tune-model "$m.onnx" --trials 60 --batch 4 --top_k 0 --db "$tmp/tuning.db" 2>&1 |
  tee "$tmp/tune.txt" | tail -3
grep -q "succeeded" "$tmp/tune.txt"
# A model's kernels are timed cold (a flush before every run), and the log says so.
"$T" best --db "$tmp/tuning.db" -k 1 > "$tmp/best.txt"
grep -q "cpu-local (cold)" "$tmp/best.txt" || { cat "$tmp/best.txt"; exit 1; }
! grep -E "^ +1 " "$tmp/best.txt" | grep -v "(cold)" || { echo "a warm record"; exit 1; }
"$T" compile "$m.onnx" --db "$tmp/tuning.db" -o "$tmp/model.so" | tee "$tmp/compile.txt"
grep -q "(0 untuned)" "$tmp/compile.txt"
grep -q "_winograd" "$tmp/import.txt" || grep -q "+T" "$tmp/import.txt"
test -s "$tmp/model.h" && test -s "$tmp/model.weights"
"$T" run "$tmp/model.so" --input "$m.input.bin" --expect "$m.expected.bin" --profile |
  tee "$tmp/run.txt"
grep -q "0 of 10 outside" "$tmp/run.txt"
grep -q "g1 conv_relu" "$tmp/run.txt"

# The same model through a job service: sent as bytes, or named under its --model_dir.
mkdir -p "$tmp/models"
cp "$m.onnx" "$tmp/models/"
"$T" serve --port 0 --host 127.0.0.1 --workers 1 --db "$tmp/service.db" --min_repeat_ms 1 \
  --model_dir "$tmp/models" >"$tmp/serve.out" 2>"$tmp/serve.err" &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null; wait $serve_pid 2>/dev/null' EXIT
port=$(listening_port "$tmp/serve.out")
"$T" tune-model "$m.onnx" --trials 60 --batch 4 --top_k 0 --service "127.0.0.1:$port" \
  >"$tmp/service_tune.txt" 2>&1
grep -q "job-1 succeeded" "$tmp/service_tune.txt"
"$T" compile "$m.onnx" --db "$tmp/service.db" -o "$tmp/service.so" | grep -q "(0 untuned)"
"$T" tune-model small_cnn.onnx --model_on_service --trials 64 --batch 4 --top_k 0 \
  --service "127.0.0.1:$port" >"$tmp/service_path.txt" 2>&1
grep -q "job-2 succeeded" "$tmp/service_path.txt"
expect_fail 2 "must be relative to the service's --model_dir, without '..'" \
  "$T" tune-model ../small_cnn.onnx --model_on_service --trials 8 --service "127.0.0.1:$port"
expect_fail 1 "cannot read the model file" \
  "$T" tune-model missing.onnx --model_on_service --trials 8 --service "127.0.0.1:$port"
kill $serve_pid; wait $serve_pid 2>/dev/null || true
trap - EXIT

# Must fail, with the reason.
printf 'not a model' >"$tmp/garbage.onnx"
expect_fail 2 "not an ONNX model" "$T" import-model "$tmp/garbage.onnx"
expect_fail 2 "cannot read the model file" "$T" import-model "$tmp/missing.onnx"
expect_fail 2 "dynamic input dimensions with no binding: 'x' dimension 0 ('batch')" \
  "$T" import-model "$tmp/dynamic.onnx"
"$T" import-model "$tmp/dynamic.onnx" --input_shape "x=1,3,8,8" | grep -q "relu"
expect_fail 2 "has rank 4 but its binding \[1, 3\] has rank 2" \
  "$T" import-model "$tmp/dynamic.onnx" --input_shape "x=1,3"
expect_fail 2 "LpNormalization: the operator (node 'norm_a')" \
  "$T" import-model "$tmp/unsupported.onnx"
head -c 1000 "$m.onnx" >"$tmp/truncated.onnx"
expect_fail 2 "not an ONNX model" "$T" compile "$tmp/truncated.onnx" -o "$tmp/t.so"
head -c 100 "$tmp/model.weights" >"$tmp/short.weights"
expect_fail 1 "are not this model's" "$T" run "$tmp/model.so" --weights "$tmp/short.weights"
cp "$tmp/model.weights" "$tmp/flipped.weights"
printf '\x55' | dd of="$tmp/flipped.weights" bs=1 seek=200 conv=notrunc 2>/dev/null
expect_fail 1 "corrupt" "$T" run "$tmp/model.so" --weights "$tmp/flipped.weights"
echo "PASS"
