#!/usr/bin/env bash
# An ONNX model in, a tuned library out, and an application that runs it: builds ResNet-18 with
# random weights (Debian's PyTorch), tunes its fused groups on the embedded local farm, compiles
# the model with the best kernels, builds main.cc against it and classifies PyTorch's input,
# checking the output against PyTorch's.
#
#   examples/deploy_model/run.sh                        # ResNet-18, 64 trials per task
#   TUNEFARM=bazel-bin/cli/tunefarm MODEL=small_cnn TRIALS=60 OUT=/tmp/x examples/deploy_model/run.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${TUNEFARM:-tunefarm}"
model="${MODEL:-resnet18}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
/usr/bin/python3 "$here/../../tests/models/make_model.py" "$model" "$out" 2>/dev/null
tasks=$("$bin" import-model "$out/$model.onnx" | sed -nE 's/.* ([0-9]+) distinct tuning tasks.*/\1/p')
trials="${TRIALS:-$((tasks * 64))}"
"$bin" tune-model "$out/$model.onnx" --trials "$trials" --batch "${BATCH:-16}" \
  --db "$out/tuning.db" > "$out/tune.txt" 2>&1 || { tail -20 "$out/tune.txt"; exit 1; }
"$bin" compile "$out/$model.onnx" --db "$out/tuning.db" -o "$out/model.so" | tail -2
g++ -O2 -I"$out" "$here/main.cc" -L"$out" -l:model.so -Wl,-rpath,"$out" -o "$out/classify"
OMP_NUM_THREADS="${THREADS:-1}" "$out/classify" "$out/model.weights" "$out/$model.input.bin" \
  "$out/$model.expected.bin"
