# Sourced by the deploy examples' run.sh. side_by_side: ROUNDS times in turn, the farm
# measures a tuned config again (`tunefarm measure`, the way tuning timed it) and the
# application times the deployed kernel (its output's "median X ms"); prints their medians
# side by side with the tuning log's time for the config beside them (`best`: the median of its
# re-measurements when the job measured it again, as it does its top configs; from another
# moment of the machine).
#
#   side_by_side TUNEFARM DB WORKLOAD ROUNDS TUNED_MS APP
# Runs in the current directory (writes measure_*.out, app_*.out, farm_ms.txt, app_ms.txt).
side_by_side() {
  local bin="$1" db="$2" workload="$3" rounds="$4" tuned_ms="$5" app="$6"
  : > farm_ms.txt
  : > app_ms.txt
  for r in $(seq 1 "$rounds"); do
    "$bin" measure --db "$db" --workload "$workload" --runs 3 --threads_per_worker 1 \
      > "measure_$r.out" 2> "measure_$r.err" || { cat "measure_$r.out" "measure_$r.err"; return 1; }
    sed -nE 's/^median ([0-9.]+) ms.*/\1/p' "measure_$r.out" >> farm_ms.txt
    OMP_NUM_THREADS=1 "$app" > "app_$r.out"
    sed -nE 's/.*median ([0-9.]+) ms.*/\1/p' "app_$r.out" >> app_ms.txt
  done
  local farm_ms deployed_ms
  farm_ms=$(_median farm_ms.txt)
  deployed_ms=$(_median app_ms.txt)
  awk -v t="$tuned_ms" -v f="$farm_ms" -v d="$deployed_ms" -v w="$workload" -v n="$rounds" 'BEGIN {
    printf "%s: tuning log %.4f ms; side by side, %d rounds: farm %.4f ms, deployed %.4f ms: deployed/farm %.3f (deployed/log %.3f)\n", w, t, n, f, d, d / f, d / t }'
}

# The workload name `tunefarm export` and `measure` take for a program's tuned task, from the
# output of `tunefarm best`: "expr:NAME:<hash>|[args] on llvm ..." -> "expr:NAME:<hash>:[args]".
#
#   program_workload NAME BEST_OUT
program_workload() {
  sed -nE "s/^(expr:$1:[0-9a-f]+)\|(\[[^]]*\]).*/\1:\2/p" "$2" | head -1
}

_median() {
  sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
