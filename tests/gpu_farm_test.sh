#!/usr/bin/env bash
# A GPU worker in a farm, on the fake CUDA driver (rpc_server/testdata/fake_libcuda.c) so it
# runs on machines without a GPU: `tunefarm server --device cuda:0` registers with the GPU's
# name and architecture, `status` shows them, and SIGTERM stops the server cleanly.
source tests/test_lib.sh
set -uo pipefail
bin="$PWD/cli/tunefarm"
export TUNEFARM_LIBCUDA="$PWD/rpc_server/testdata/libfakecuda.so"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
export TUNEFARM_TOKEN=gpu-farm-test
"$bin" tracker --host 127.0.0.1 --port 0 > tracker.out 2>&1 &
tracker_pid=$!
server_pid=""
trap 'kill $tracker_pid $server_pid 2>/dev/null; wait 2>/dev/null' EXIT
port=$(listening_port "tracker.out") || exit 1
addr="127.0.0.1:$port"
"$bin" server --tracker "$addr" --key gpu-fake --device cuda:0 > server.out 2>&1 &
server_pid=$!
ok=""
for _ in $(seq 1 100); do
  if "$bin" status --tracker "$addr" > status.out 2>&1 && grep -q "gpu-fake" status.out; then
    ok=1
    break
  fi
  sleep 0.1
done
[[ -n "$ok" ]] || { echo "GPU server did not register"; cat status.out server.out; exit 1; }
grep -q "Fake CUDA Device (sm_90)" status.out \
  || { echo "FAIL: status does not show the GPU"; cat status.out; exit 1; }
echo "ok: status shows the GPU worker"
grep -q "cuda:0: Fake CUDA Device, sm_90" server.out \
  || { echo "FAIL: server does not name its device"; cat server.out; exit 1; }
echo "ok: server names its device"
kill -TERM "$server_pid"
wait "$server_pid"; code=$?
[[ $code == 0 ]] || { echo "FAIL: server exited $code after SIGTERM"; cat server.out; exit 1; }
server_pid=""
echo "ok: server stopped on SIGTERM"
echo "PASS"
