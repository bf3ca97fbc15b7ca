#!/usr/bin/env bash
# bench:cpu_kernels end to end on one shape at a few trials (--quick): the shape is tuned in both
# of its programs, timed side by side with OpenBLAS and oneDNN, and printed as the benchmark's
# table row, its ratio with the 95% interval over the rounds and a verdict, the lists of rows
# under 1.0 and the RESULT line with every key the issue and the docs read. Only the output's
# form is checked: no value depends on this machine's speed but for being a number.
set -uo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/cpu_kernels.out"
bench/cpu_kernels --quick --only="dense 512x16x512" --trials=8 >"$out" 2>"$out.err"
rc=$?
cat "$out"
fails=0
fail() { echo "FAIL: $*"; fails=1; }
[[ $rc -eq 0 ]] || { tail -20 "$out.err"; fail "exit status $rc"; }
num='[0-9]+\.[0-9]+'
grep -Eq "^dense 512x16x512 +1 +8 +$num +$num +$num +$num +$num" "$out" ||
  fail "no table row for dense 512x16x512 with ours, OpenBLAS, oneDNN, ratio and peak"
grep -Eq "^  libraries OpenBLAS .*oneDNN " "$out" || fail "no line of the libraries timed"
# Both programs of a 16-output dense layer were tuned and timed in the process (stderr).
for program in dense_layer dense_pairs; do
  grep -Eq "^dense 512x16x512: $program.te $num GFLOP/s \(direct count\); the farm measured $num" \
    "$out.err" || fail "$program.te not tuned and timed"
done
grep -Eq "^  ratio $num, its 95% interval over the [0-9]+ rounds \[$num, $num\]: (ours faster beyond the rounds' noise|ours slower beyond the rounds' noise|a tie within the rounds' noise)$" "$out" ||
  fail "no ratio with its interval and verdict"
# The interval holds the ratio it is printed with.
read -r ratio lo hi < <(sed -nE "s/^  ratio ($num), its 95% interval over the [0-9]+ rounds \[($num), ($num)\].*/\1 \2 \3/p" "$out")
awk -v r="$ratio" -v l="$lo" -v h="$hi" 'BEGIN { exit !(l <= r && r <= h) }' ||
  fail "ratio $ratio outside its interval [$lo, $hi]"
grep -Eq "^rows under 1.0 slower beyond the rounds' noise \(95% interval under 1\): " "$out" ||
  fail "no list of the rows slower beyond the noise"
grep -Eq "^rows under 1.0 within it \(ties\): " "$out" || fail "no list of the ties under 1.0"
result=$(grep '^RESULT ' "$out" | tail -1)
[[ "$(tail -1 "$out")" == "$result" ]] || fail "RESULT is not the last line"
for key in ratio_min ratio_median ratio_min_2t peak_frac_1024 int8_ratio_min slower_rows \
  tie_rows_under_1 fma_peak_gflops read_gbs; do
  grep -Eq " $key=[0-9.]+( |$)" <<<"$result" || fail "RESULT has no $key"
done
# One tuned one-thread fp32 shape: ratio_min and ratio_median are its ratio; it is under 1.0
# exactly when it is in one of the two lists.
value() { sed -nE "s/.* $1=([^ ]+).*/\1/p" <<<"$result"; }
awk -v r="$(value ratio_min)" 'BEGIN { exit !(r > 0) }' || fail "ratio_min $(value ratio_min)"
under=$(awk -v r="$(value ratio_min)" 'BEGIN { print (r < 1) ? 1 : 0 }')
listed=$(($(value slower_rows) + $(value tie_rows_under_1)))
[[ "$listed" -eq "$under" ]] || [[ "$(value ratio_min)" == 1.000 ]] ||
  fail "slower_rows + tie_rows_under_1 = $listed for ratio_min $(value ratio_min)"
[[ $fails -eq 0 ]] && echo PASS
exit $fails
