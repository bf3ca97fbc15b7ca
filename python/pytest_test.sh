#!/usr/bin/env bash
# The Python client's tests (python/tests) against the built `tunefarm` binary, with Debian's
# interpreter: another python3 may come first on PATH without grpcio or protobuf.
set -euo pipefail
export TUNEFARM_BIN="$PWD/cli/tunefarm"
export PYTHONPATH="$PWD/python"
export PYTHONDONTWRITEBYTECODE=1
basetemp="${TEST_TMPDIR:-$(mktemp -d)}/pytest"
exec /usr/bin/python3 -m pytest -q -p no:cacheprovider --basetemp="$basetemp" python/
