#!/usr/bin/env bash
# Dense layers of 8 and 16 outputs in a model (tests/models/make_model.py mlp: 64 rows through
# layers of 16, 8 and 10 outputs) are also tuned with their weight in pairs of inputs
# (graph/dense_pairs.h, examples/programs/dense_pairs.te): import-model lists the alternative
# tasks, tune-model tunes them, and the compiled model is PyTorch's whichever program a group
# runs. The log is then cut to the pairs programs' records alone, so the compiled model must
# run them, and still be PyTorch's.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
T="$PWD/cli/tunefarm"
PY=/usr/bin/python3

$PY tests/models/make_model.py mlp "$tmp" 2>/dev/null
m="$tmp/mlp"

"$T" import-model "$m.onnx" --programs | tee "$tmp/import.txt"
grep -q "5 distinct tuning tasks" "$tmp/import.txt"
grep -qE "^ +0 +dense +gemm_relu .* T0 \+T1$" "$tmp/import.txt"
grep -qE "^ +1 +dense +gemm .* T2 \+T3$" "$tmp/import.txt"
grep -qE "^ +2 +dense +gemm .* T4$" "$tmp/import.txt"
grep -q "^T1 gemm_relu_pairs" "$tmp/import.txt"
grep -q "Wt = weight(float32, \[K / 2, N / 8, 8, 2\])" "$tmp/import.txt"

"$T" tune-model "$m.onnx" --trials 40 --batch 4 --top_k 0 --db "$tmp/tuning.db" 2>&1 |
  tee "$tmp/tune.txt" | tail -3
grep -q "succeeded" "$tmp/tune.txt"
"$T" best --db "$tmp/tuning.db" -k 1 > "$tmp/best.txt"
grep -q "expr:gemm_relu_pairs:" "$tmp/best.txt" || { cat "$tmp/best.txt"; exit 1; }
grep -q "expr:gemm_pairs:" "$tmp/best.txt" || { cat "$tmp/best.txt"; exit 1; }

# The fastest tuned program of each group.
"$T" compile "$m.onnx" --db "$tmp/tuning.db" -o "$tmp/model.so" | tee "$tmp/compile.txt"
grep -q "(0 untuned)" "$tmp/compile.txt"
"$T" run "$tmp/model.so" --input "$m.input.bin" --expect "$m.expected.bin" | tee "$tmp/run.txt"
grep -q "0 of 640 outside" "$tmp/run.txt"

# Only the pairs programs' records left: the first two groups run them, the last its own
# program untuned.
$PY - "$tmp/tuning.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DELETE FROM records WHERE workload_id IN "
           "(SELECT id FROM workloads WHERE template NOT LIKE '%\\_pairs:%' ESCAPE '\\')")
db.commit()
PY
"$T" compile "$m.onnx" --db "$tmp/tuning.db" -o "$tmp/pairs.so" 2>"$tmp/warn.txt" |
  tee "$tmp/compile_pairs.txt"
grep -q "^g0 gemm_relu_pairs " "$tmp/compile_pairs.txt"
grep -q "^g1 gemm_pairs " "$tmp/compile_pairs.txt"
grep -q "(1 untuned)" "$tmp/compile_pairs.txt"
grep -q "warning: g2 gemm has no tuned record" "$tmp/warn.txt"
"$T" run "$tmp/pairs.so" --input "$m.input.bin" --expect "$m.expected.bin" |
  tee "$tmp/run_pairs.txt"
grep -q "0 of 640 outside" "$tmp/run_pairs.txt"
echo "PASS"
