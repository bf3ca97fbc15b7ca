#!/usr/bin/env bash
# examples/deploy_model/run.sh end to end on the small test CNN: ONNX in, tuned library out, an
# application built against model.h that classifies PyTorch's input and matches its output.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
TUNEFARM="$PWD/cli/tunefarm" MODEL=small_cnn TRIALS=60 BATCH=4 OUT="$tmp/run" \
  bash examples/deploy_model/run.sh | tee "$tmp/run.txt"
grep -q "^ok: 0 of 10 outputs" "$tmp/run.txt"
grep -q "^top-5:" "$tmp/run.txt"
grep -q "tf_model_create_from_file" "$tmp/run/model.h"
echo "PASS"
