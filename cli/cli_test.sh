#!/usr/bin/env bash
# Exercises the dispatcher of the real binary: help, exit codes, per-subcommand flags.
set -u
bin="cli/tunefarm"
fails=0
expect() {  # expect CODE PATTERN -- ARGS...
  local want_code="$1" pattern="$2"; shift 3
  local out code
  out=$("$bin" "$@" 2>&1); code=$?
  if [[ "$code" != "$want_code" ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: tunefarm $* -> exit $code (want $want_code), output:"; echo "$out"
    fails=$((fails + 1))
  else
    echo "ok: tunefarm $* -> $code"
  fi
}
expect 0 "Commands:" -- --help
expect 0 "version" -- help
expect 2 "Usage: tunefarm <command>" --
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 0 "^tunefarm [0-9]+\.[0-9]+\.[0-9]+" -- version
expect 0 "LLVM +16" -- version
expect 0 "--short" -- version --help
expect 2 "unknown flag '--bogus'" -- version --bogus
expect 0 "^tunefarm [0-9.]+$" -- version --short
expect 2 "takes no arguments" -- version extra
for sub in tune tracker server status best history export import-log export-log; do
  expect 0 "Usage: tunefarm $sub" -- "$sub" --help
done
expect 2 "not built yet" -- tune dense --shape 1,2,3
expect 0 "--key" -- server --help
expect 0 "--token" -- tracker --help
expect 2 "--tracker HOST:PORT and --key KEY are required" -- server
expect 2 "unknown flag '--key'" -- tracker --key x
expect 1 "tunefarm status: 127.0.0.1:1" -- status --tracker 127.0.0.1:1
[[ $fails == 0 ]] || { echo "$fails failures"; exit 1; }
