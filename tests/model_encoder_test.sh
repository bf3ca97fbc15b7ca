#!/usr/bin/env bash
# A transformer encoder layer from PyTorch (torch.nn.TransformerEncoderLayer with GELU, exported
# by torch.onnx at opset 13: the attention's slices, transposes, batch matmuls and softmax, the
# layer norms as ReduceMean/Sub/Pow/Sqrt/Div chains, GELU as Erf) through the model flow:
# import-model, compile untuned, tune-model on the embedded local farm, compile from the log and
# run against PyTorch's output. Then opset 17's LayerNormalization, and the attention shapes the
# programs refuse, each with its reason.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
T="$PWD/cli/tunefarm"
PY=/usr/bin/python3
source tests/test_lib.sh

$PY tests/models/make_model.py encoder_gelu "$tmp" 2>/dev/null
$PY tests/models/make_onnx_cases.py "$tmp"
m="$tmp/encoder_gelu"

"$T" import-model "$m.onnx" --programs | tee "$tmp/import.txt"
# GELU (x read twice: x * (erf(x / sqrt 2) + 1) * 0.5) is fused into its dense layer, and the
# attention's residual add into the output projection through the reshapes between them.
for kind in batch_matmul softmax layer_norm injective "slice_reshape_transpose_div" \
  "T10 matmul_add_div_erf_add_mul_mul" "gemm_reshape_transpose_add" \
  "14 fused groups (13 kernels)"; do
  grep -q "$kind" "$tmp/import.txt" || { echo "FAIL: no $kind group" >&2; exit 1; }
done
# The input's transpose of a unit axis is a view; the two layer norms are one task.
grep -q "view .*transpose" "$tmp/import.txt"
grep -q "layernormalization (runs 2 times per inference)" "$tmp/import.txt"

"$T" compile "$m.onnx" -o "$tmp/untuned.so" 2>"$tmp/warn.txt"
grep -q "softmax has no tuned record" "$tmp/warn.txt"
"$T" run "$tmp/untuned.so" --input "$m.input.bin" --expect "$m.expected.bin" --runs 2 |
  tee "$tmp/untuned_run.txt"
grep -q "0 of 32768 outside" "$tmp/untuned_run.txt"

# Tuned: every task gets a first round of 4.
tuned_model_check "$m" 56 32768

# Opset 17's LayerNormalization (and a softmax after it) against numpy.
"$T" compile "$tmp/layer_norm17.onnx" -o "$tmp/ln.so" 2>/dev/null
"$T" run "$tmp/ln.so" --input "$tmp/layer_norm17.input.bin" \
  --expect "$tmp/layer_norm17.expected.bin" --runs 1 | grep -q "0 of 240 outside"

expect_fail 2 "Softmax: a softmax over other than the last axis (node 'sm_axis1')" \
  "$T" import-model "$tmp/softmax_axis1.onnx"
expect_fail 2 "MatMul of two activations with broadcast batch axes" \
  "$T" import-model "$tmp/broadcast_matmul.onnx"
echo "PASS"
