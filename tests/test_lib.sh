# Shell helpers shared by the tests that start real `tunefarm` processes. Source it from the
# runfiles root: `source tests/test_lib.sh`.

# listening_port OUTFILE: the port a tracker or job service printed ("listening on H:P") to
# OUTFILE, waiting up to 10 s; on failure prints OUTFILE to stderr and returns 1.
listening_port() {
  local p=""
  for _ in $(seq 1 100); do
    p=$(sed -nE 's/.*listening on [0-9.]+:([0-9]+).*/\1/p' "$1")
    [[ -n "$p" ]] && break
    sleep 0.1
  done
  [[ -n "$p" ]] || { echo "nothing listens: $1 says" >&2; cat "$1" >&2; return 1; }
  echo "$p"
}
