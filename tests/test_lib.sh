# Shell helpers shared by the tests that start real `tunefarm` processes. Source it from the
# runfiles root: `source tests/test_lib.sh`.

# printed_port OUTFILE SED_REGEX WHAT: the port OUTFILE's line matching SED_REGEX (an extended
# sed expression whose group 1 is the port) names, waiting up to 10 s; on failure says "no WHAT",
# prints OUTFILE to stderr and returns 1.
printed_port() {
  local p=""
  for _ in $(seq 1 100); do
    p=$(sed -nE "s/$2/\\1/p" "$1" | head -1)
    [[ -n "$p" ]] && break
    sleep 0.1
  done
  [[ -n "$p" ]] || { echo "no $3: $1 says" >&2; cat "$1" >&2; return 1; }
  echo "$p"
}

# listening_port OUTFILE: the port a tracker or job service printed ("listening on H:P").
listening_port() { printed_port "$1" '.*listening on [0-9.]+:([0-9]+).*' "gRPC listener"; }

# http_port OUTFILE: the port of the dashboard they printed ("dashboard on http://H:P/").
http_port() { printed_port "$1" '.*dashboard on http:\/\/[0-9.]+:([0-9]+)\/.*' "dashboard"; }

# expect_fail CODE PATTERN CMD...: CMD exits with CODE and its output says PATTERN (uses $tmp);
# otherwise prints what it said and exits 1.
expect_fail() {
  local code=$1 pattern=$2
  shift 2
  set +e
  "$@" >"$tmp/out.txt" 2>&1
  local rc=$?
  set -e
  if [[ $rc -ne $code ]] || ! grep -q -- "$pattern" "$tmp/out.txt"; then
    echo "FAIL: '$*' exited $rc (want $code) saying:" >&2
    cat "$tmp/out.txt" >&2
    echo "(want: $pattern)" >&2
    exit 1
  fi
}

# tuned_model_check MODEL TRIALS OUTPUTS: tunes MODEL.onnx on the embedded local farm with
# `tunefarm` at $T (TRIALS, a first round of 4 per task, no top-k) into MODEL.db, compiles it
# from the log into MODEL.so and runs it against PyTorch's MODEL.expected.bin: every group
# tuned, all OUTPUTS outputs within tolerance. MODEL.{tune,compile,run}.txt keep what each said.
tuned_model_check() {
  local m=$1
  "$T" tune-model "$m.onnx" --trials "$2" --batch 4 --top_k 0 --db "$m.db" 2>&1 |
    tee "$m.tune.txt" | tail -3
  grep -q "succeeded" "$m.tune.txt"
  "$T" compile "$m.onnx" --db "$m.db" -o "$m.so" | tee "$m.compile.txt"
  grep -q "(0 untuned)" "$m.compile.txt"
  "$T" run "$m.so" --input "$m.input.bin" --expect "$m.expected.bin" | tee "$m.run.txt"
  grep -q "0 of $3 outside" "$m.run.txt"
}
