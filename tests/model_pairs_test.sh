#!/usr/bin/env bash
# Layers whose weight also gets the layout in pairs of inputs (graph/dense_pairs.h,
# examples/programs/dense_pairs.te), through the whole model flow:
# - mlp (tests/models/make_model.py): 64 rows through dense layers of 16, 8 and 10 outputs;
# - pointwise: 1x1 convolutions 32→24 (batch norm, ReLU6), 24→40 (batch norm) and 40→40 (a
#   residual add and ReLU) over 8x8 pixels, in the planned channel blocks.
# import-model lists the alternative tasks, tune-model tunes them, and the compiled model is
# PyTorch's whichever program each group runs. The log is then cut to the pairs programs'
# records alone, so the compiled model must run them, and still be PyTorch's.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
T="$PWD/cli/tunefarm"
PY=/usr/bin/python3
source tests/test_lib.sh

# keep_pairs DB: deletes every record but the pairs programs'.
keep_pairs() {
  $PY - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DELETE FROM records WHERE workload_id IN "
           "(SELECT id FROM workloads WHERE template NOT LIKE '%\\_pairs:%' ESCAPE '\\')")
db.commit()
PY
}

# tune_compile_run NAME TRIALS OUTPUTS: tunes the model, compiles it from the log, runs it
# against PyTorch's output; then the same from the pairs programs' records alone.
tune_compile_run() {
  local m="$tmp/$1"
  tuned_model_check "$m" "$2" "$3"
  keep_pairs "$m.db"
  "$T" compile "$m.onnx" --db "$m.db" -o "$m.pairs.so" 2>"$m.warn.txt" |
    tee "$m.compile_pairs.txt"
  "$T" run "$m.pairs.so" --input "$m.input.bin" --expect "$m.expected.bin" |
    tee "$m.run_pairs.txt"
  grep -q "0 of $3 outside" "$m.run_pairs.txt"
}

$PY tests/models/make_model.py mlp "$tmp" 2>/dev/null
$PY tests/models/make_model.py pointwise "$tmp" 2>/dev/null

# Dense layers: 16 and 8 outputs get the pairs program, 10 do not.
"$T" import-model "$tmp/mlp.onnx" --programs | tee "$tmp/mlp.import.txt"
grep -q "5 distinct tuning tasks" "$tmp/mlp.import.txt"
grep -qE "^ +0 +dense +gemm_relu .* T0 \+T1$" "$tmp/mlp.import.txt"
grep -qE "^ +1 +dense +gemm .* T2 \+T3$" "$tmp/mlp.import.txt"
grep -qE "^ +2 +dense +gemm .* T4$" "$tmp/mlp.import.txt"
grep -q "^T1 gemm_relu_pairs" "$tmp/mlp.import.txt"
grep -q "Wt = weight(float32, \[K / 2, N / 8, 8, 2\])" "$tmp/mlp.import.txt"
tune_compile_run mlp 40 640
grep -q "^g0 gemm_relu_pairs " "$tmp/mlp.compile_pairs.txt"
grep -q "^g1 gemm_pairs " "$tmp/mlp.compile_pairs.txt"
grep -q "(1 untuned)" "$tmp/mlp.compile_pairs.txt"
grep -q "warning: g2 gemm has no tuned record" "$tmp/mlp.warn.txt"

# 1x1 convolutions of 24 and 40 outputs, over input blocks of 16, 24 and 40 channels.
"$T" import-model "$tmp/pointwise.onnx" --programs | tee "$tmp/pointwise.import.txt"
grep -q "8 distinct tuning tasks" "$tmp/pointwise.import.txt"
grep -qE "^ +1 +conv +conv_clip .* T1 \+T2$" "$tmp/pointwise.import.txt"
grep -qE "^ +3 +conv +conv_add_relu .* T5 \+T6$" "$tmp/pointwise.import.txt"
grep -q "^T6 conv_add_relu_pairs" "$tmp/pointwise.import.txt"
grep -q "Wt = weight(float32, \[C, CB / 2, FT / 8, 8, 2\])" "$tmp/pointwise.import.txt"
tune_compile_run pointwise 64 2560
grep -q "^g1 conv_clip_pairs " "$tmp/pointwise.compile_pairs.txt"
grep -q "^g2 conv_pairs " "$tmp/pointwise.compile_pairs.txt"
grep -q "^g3 conv_add_relu_pairs " "$tmp/pointwise.compile_pairs.txt"
grep -q "(2 untuned)" "$tmp/pointwise.compile_pairs.txt"
echo "PASS"
