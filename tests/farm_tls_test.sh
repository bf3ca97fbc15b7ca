#!/usr/bin/env bash
# The farm over TLS with a token: a tracker serving a self-signed certificate, a device server
# and `status` trusting it, a tuning job submitted through it; without the CA the connection is
# refused.
set -uo pipefail
bin="$PWD/cli/tunefarm"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 1 \
  -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2> openssl.err \
  || { cat openssl.err; exit 1; }
export TUNEFARM_TOKEN=tls-test-token
"$bin" tracker --host 127.0.0.1 --port 0 --tls_cert cert.pem --tls_key key.pem > tracker.out 2>&1 &
tracker_pid=$!
trap 'kill $tracker_pid $server_pid 2>/dev/null; wait 2>/dev/null' EXIT
server_pid=""
port=""
for _ in $(seq 1 100); do
  port=$(sed -nE 's/.*listening on [0-9.]+:([0-9]+).*/\1/p' tracker.out)
  [[ -n "$port" ]] && break
  sleep 0.1
done
[[ -n "$port" ]] || { echo "tracker did not start"; cat tracker.out; exit 1; }
grep -q "tls: on\|tls: yes\|tls: enabled" tracker.out || { echo "tracker does not report TLS"; cat tracker.out; exit 1; }
addr="127.0.0.1:$port"
"$bin" server --tracker "$addr" --key cpu-tls --tls_ca cert.pem > server.out 2>&1 &
server_pid=$!
ok=""
for _ in $(seq 1 100); do
  if "$bin" status --tracker "$addr" --tls_ca cert.pem > status.out 2>&1 && grep -q "cpu-tls" status.out; then
    ok=1
    break
  fi
  sleep 0.1
done
[[ -n "$ok" ]] || { echo "server did not register over TLS"; cat status.out server.out; exit 1; }
echo "ok: server registered over TLS"
if "$bin" status --tracker "$addr" > plain.out 2>&1; then
  echo "FAIL: a plaintext client reached the TLS tracker"; exit 1
fi
echo "ok: plaintext client refused"
TUNEFARM_TOKEN=wrong "$bin" status --tracker "$addr" --tls_ca cert.pem > badtoken.out 2>&1
grep -q "UNAUTHENTICATED" badtoken.out || { echo "FAIL: wrong token not refused"; cat badtoken.out; exit 1; }
echo "ok: wrong token refused"
"$bin" tune dense --shape 16,16,16 --trials 4 --batch 4 --strategy random --top_k 0 \
  --tracker "$addr" --key cpu-tls --tls_ca cert.pem --db "$tmp/tls.db" > tune.out 2> tune.err \
  || { cat tune.out tune.err; exit 1; }
grep -q "succeeded" tune.out || { cat tune.out tune.err; exit 1; }
echo "ok: tuning job measured over TLS"
echo "PASS"
