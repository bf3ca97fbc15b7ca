#!/usr/bin/env bash
# The whole test suite: installs missing packages, checks formatting, runs every Bazel test,
# then the fuzz targets' tests and a few unit tests again instrumented (clang-16 with ASan and
# UBSan).
# This is the README's second quick-start command and exactly what CI runs (.ci/run).
set -uo pipefail
cd "$(dirname "$0")/.."
deploy/setup.sh --tests || exit 1
tools/check_format.sh || exit 1

log=$(mktemp)
bazel test //... "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
# The fuzz targets again under --config=fuzz (.bazelrc: clang-16, libFuzzer's coverage, ASan and
# UBSan), each on its seed corpus and a few seconds of mutations: a use-after-free or undefined
# behaviour that the gcc build runs through silently fails here. Their own output directory.
# With them, the unit tests of the simplifier, lowering and code generation, and the generated
# space's random-config tests (kernels built, run and unloaded): a leak of a kernel's kept
# workspace, or an integer conversion of NaN, fails there (LeakSanitizer, UBSan).
sanitized=(//tests/fuzz:all //compiler/arith:analyzer_test //compiler/lower:lower_test
  //compiler/codegen:codegen_test //compiler/tests:dtype_shape_test
  //tuner/generated:generated_space_test)
bazel test --config=fuzz "${sanitized[@]}" "$@" 2>&1 | tee -a "$log"
fuzz_rc=${PIPESTATUS[0]}
if [[ $rc -eq 0 ]]; then rc=$fuzz_rc; fi

# One closing line that any CI reader understands, from Bazel's own summary.
passed=$(grep -cE "^//.* PASSED in" "$log" || true)
failed=$(grep -cE "^//.* (FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)" "$log" || true)
if [[ $passed -eq 0 && $failed -eq 0 ]]; then
  # Bazel prints per-target lines only for what it ran; fall back to its "Executed" line.
  total=$(grep -oE "Executed [0-9]+ out of ([0-9]+) test" "$log" | grep -oE "[0-9]+ test" | grep -oE "[0-9]+" || true)
  if [[ $rc -eq 0 ]]; then passed=${total:-0}; fi
fi
rm -f "$log"
# Test cases that skipped themselves (no GPU, no CUDA toolkit), with their reasons.
testlogs=$(bazel info bazel-testlogs 2>/dev/null)
skipped=0
if [[ -d "$testlogs" ]]; then
  while IFS= read -r f; do
    target=${f#"$testlogs"/}
    target=${target%/test.log}
    target="//${target%/*}:${target##*/}"
    reason=$(grep -B1 -m1 -E "^\[  SKIPPED \]" "$f" | head -1 | sed -E 's/^[^:]*:[0-9]+: //; s/^Skipped *//')
    echo "skipped: ${target}: ${reason}"
    skipped=$((skipped + 1))
  done < <(grep -lE "^\[  SKIPPED \] [0-9]+ test" -r "$testlogs" --include=test.log 2>/dev/null | sort)
fi
echo "tests: ${passed} passed, ${failed} failed (${skipped} with skipped cases)"
exit "$rc"
