#!/usr/bin/env bash
# AutoTVM logs end to end with the real binary: a log in TVM's format imports under tunefarm's
# workload names with GFLOP/s, exports back to lines TVM's reader accepts (and to TVM's own
# records), and `tune --seed-from-log` measures its translated configs as the first round on the
# embedded local farm.
set -euo pipefail
bin="$PWD/cli/tunefarm"
tvm_log="$PWD/tests/testdata/autotvm/tvm_x86.log"
check="$PWD/tests/autotvm_reader_check.py"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
# want FILE PATTERN: FILE contains PATTERN (extended regex).
want() { grep -qE -- "$2" "$1" || { cat "$1" >&2; fail "$1 lacks: $2"; }; }

target="llvm -keys=cpu -link-params=0 -mcpu=skylake-avx512"
"$bin" import-log --db t.db "$tvm_log" > import.out
cat import.out
want import.out "^imported 16 of 16 lines .*\(0 malformed, 0 unknown template\)"
want import.out "skipped 3 '#' comment lines"
want import.out "workloads: 13 converted to tunefarm templates .*, 3 kept in TVM's arguments"
want import.out "configs: 11 translated .*\(1 approximately\), 2 kept as TVM's"
want import.out "dilation 2"
want import.out "tile_ow \[-1,28\] is not a choice"

# best finds them under tunefarm's workloads, with GFLOP/s: 231.2 MFLOP in 1.9 ms = 121.7.
"$bin" best --db t.db --workload 'conv2d_nchwc:[1,64,56,56,64,3,3,1,1,"float32"]' \
  --target "$target" -k 3 > best_conv.out
cat best_conv.out
want best_conv.out "^conv2d_nchwc\|\[1,64,56,56,64,3,3,1,1,\"float32\"\]"
want best_conv.out "^ +1 +121\.7 "
[[ $(grep -cE '^ +[0-9]+ +[0-9.]+ ' best_conv.out) == 3 ]] || fail "want 3 conv rows"
"$bin" best --db t.db --workload 'dense:[64,64,64,"float32"]' --target "$target" -k 5 \
  > best_dense.out
cat best_dense.out
want best_dense.out "^ +1 +119\.2 "
"$bin" best --db t.db --workload 'batch_matmul:[8,64,48,32,"float32"]' --target "$target" \
  > best_bmm.out
want best_bmm.out "^ +1 +[0-9]+\.[0-9] "

# Export: lines TVM's reader accepts, holding exactly TVM's records.
"$bin" export-log --db t.db out.log > export.out
want export.out "wrote 16 records"
/usr/bin/python3 "$check" out.log --compare "$tvm_log"
# Our export imports back with the same report, a note for every line that kept TVM's args or
# config.
"$bin" import-log --db again.db out.log > again.out
want again.out "^imported 16 of 16 lines .*\(0 malformed, 0 unknown template\)"
want again.out "workloads: 13 converted to tunefarm templates .*, 3 kept in TVM's arguments"
want again.out "configs: 11 translated .*\(1 approximately\), 2 kept as TVM's"
! grep -q "and [0-9]* more" again.out || { cat again.out; fail "unlisted notes"; }
# A knob type TVM lacks (here text that would end a comment of an exported kernels.h) is a
# malformed line.
line=$(grep -m1 '"dense_pack.x86"' "$tvm_log")
echo "${line/'"sp"'/'"*/ __attribute__((constructor)) static void pwn(void){} /*"'}" > pwn.log
"$bin" import-log --db pwn.db pwn.log > pwn.out
want pwn.out "^imported 0 of 1 lines .*\(1 malformed, 0 unknown template\)"
want pwn.out "not one of TVM's \(sp, re, an, ot\)"

# tune --seed-from-log: the 4 translated dense configs of the log are the first (and, with 4
# trials, only) round, fastest first.
"$bin" tune dense --shape 64,64,64 --trials 4 --batch 4 --strategy random --top_k 0 \
  --workers 1 --min_repeat_ms 1 --db tune.db --seed-from-log "$tvm_log" \
  > tune.out 2> tune.err || { cat tune.out tune.err; fail "tune"; }
cat tune.out
want tune.out "seeded 4 configs of dense\[64,64,64,float32\] from .*tvm_x86.log \(its records of this workload: 4, of which 0 have no translated config\)"
want tune.out "succeeded"
"$bin" export-log --db tune.db tuned.log > /dev/null
/usr/bin/python3 "$check" tuned.log
[[ $(wc -l < tuned.log) == 4 ]] || fail "want 4 measured configs"
# The register tiles of TVM's configs 1203, 4410, 2388 and 345, as measured here.
for tile in '"tile_x":\[-1,16\],"tile_y":\[-1,8\]' '"tile_x":\[-1,32\],"tile_y":\[-1,4\]' \
  '"tile_x":\[-1,64\],"tile_y":\[-1,16\]' '"tile_x":\[-1,16\],"tile_y":\[-1,4\]'; do
  want tuned.log "$tile"
done
# The same for a conv2d_NCHWc.x86 task: its 2 translated configs (TVM's 3004 and 1517; the
# third record's tile_ow 28 is no choice of ours) measured on the local farm as the only round.
"$bin" tune conv2d_nchwc --shape 1,64,56,56,64,3,3,1,1 --trials 2 --batch 2 --strategy random \
  --top_k 0 --workers 1 --min_repeat_ms 1 --db tune_conv.db --seed-from-log "$tvm_log" \
  > tune_conv.out 2> tune_conv.err || { cat tune_conv.out tune_conv.err; fail "tune conv"; }
want tune_conv.out "seeded 2 configs of conv2d_nchwc\[1,64,56,56,64,3,3,1,1,float32\] from .* \(its records of this workload: 3, of which 1 have no translated config\)"
want tune_conv.out "succeeded after 2 trials"
"$bin" export-log --db tune_conv.db tuned_conv.log > /dev/null
/usr/bin/python3 "$check" tuned_conv.log
[[ $(wc -l < tuned_conv.log) == 2 ]] || fail "want 2 measured conv configs"
want tuned_conv.log '"tile_ic","sp",\[-1,8\]\],\["tile_oc","sp",\[-1,16\]\],\["tile_ow","sp",\[-1,8\]\],\["unroll_kw","ot",true\]'
want tuned_conv.log '"tile_ic","sp",\[-1,16\]\],\["tile_oc","sp",\[-1,32\]\],\["tile_ow","sp",\[-1,14\]\],\["unroll_kw","ot",false\]'
want tuned_conv.log '"result":\[\[[0-9.e-]+,[0-9.e-]+,[0-9.e-]+\],0,'
# Wrong flags and files fail cleanly.
set +e
"$bin" tune dense --shape 64,64,64 --trials 1 --db tune.db --seed-from-log missing.log \
  > missing.out 2>&1
rc=$?
set -e
[[ $rc == 1 ]] || { cat missing.out; fail "missing seed log: exit $rc"; }
want missing.out "cannot read missing.log"
set +e
"$bin" tune dense --shape 64,64,64 --trials 1 --service 127.0.0.1:1 --seed-from-log "$tvm_log" \
  > remote.out 2>&1
rc=$?
set -e
[[ $rc == 2 ]] || { cat remote.out; fail "seed log with --service: exit $rc"; }
want remote.out "needs the job to run here"
echo "autotvm_log_test: ok"
