#!/usr/bin/env bash
# The farm over TLS with a token: a tracker serving a self-signed certificate, a device server
# and `status` trusting it, a tuning job submitted through it; without the CA the connection is
# refused. Then mutual TLS with a token per role: a tracker that requires client certificates
# signed by its CA, a server holding only the worker token, a tuner holding only the client
# token; a peer without a certificate, and a token of the wrong role, are refused.
source tests/test_lib.sh
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
registered() {  # registered KEY OUTFILE STATUS-FLAGS...: waits up to 10 s for KEY in `status`
  local key="$1" out="$2"
  shift 2
  for _ in $(seq 1 100); do
    "$bin" status "$@" > "$out" 2>&1 && grep -q "$key" "$out" && return 0
    sleep 0.1
  done
  return 1
}
port=$(listening_port tracker.out) || exit 1
grep -q "tls: on\|tls: yes\|tls: enabled" tracker.out || { echo "tracker does not report TLS"; cat tracker.out; exit 1; }
addr="127.0.0.1:$port"
"$bin" server --tracker "$addr" --key cpu-tls --tls_ca cert.pem --calibration_period_s 0 > server.out 2>&1 &
server_pid=$!
registered cpu-tls status.out --tracker "$addr" --tls_ca cert.pem \
  || { echo "server did not register over TLS"; cat status.out server.out; exit 1; }
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
kill $tracker_pid $server_pid 2>/dev/null
wait 2>/dev/null

# ---- Mutual TLS, a token per role ----
unset TUNEFARM_TOKEN
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 1 -subj "/CN=farm-ca" \
  2> openssl.err || { cat openssl.err; exit 1; }
sign() {  # sign NAME CN [SAN]: NAME.key and NAME.pem signed by ca.pem
  openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>> openssl.err
  if [[ -n "${3:-}" ]]; then echo "subjectAltName=$3" > "$1.ext"; else : > "$1.ext"; fi
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" -days 1 \
    -extfile "$1.ext" 2>> openssl.err
}
sign tracker localhost "DNS:localhost,IP:127.0.0.1" && sign device device-1 && sign tuner tuner-1 \
  || { cat openssl.err; exit 1; }
TUNEFARM_WORKER_TOKEN=wt TUNEFARM_CLIENT_TOKEN=ct "$bin" tracker --host 127.0.0.1 --port 0 \
  --tls_cert tracker.pem --tls_key tracker.key --tls_client_ca ca.pem > mtracker.out 2>&1 &
tracker_pid=$!
port=$(listening_port mtracker.out) || exit 1
grep -q "auth: token per role, tls: on, client certificates required" mtracker.out \
  || { echo "tracker does not report mTLS and role tokens"; cat mtracker.out; exit 1; }
addr="127.0.0.1:$port"
TUNEFARM_WORKER_TOKEN=wt "$bin" server --tracker "$addr" --key cpu-mtls --tls_ca ca.pem --calibration_period_s 0 \
  --tls_client_cert device.pem --tls_client_key device.key > mserver.out 2>&1 &
server_pid=$!
TUNEFARM_CLIENT_TOKEN=ct registered cpu-mtls mstatus.out --tracker "$addr" --tls_ca ca.pem \
  --tls_client_cert tuner.pem --tls_client_key tuner.key \
  || { echo "server did not register over mTLS"; cat mstatus.out mserver.out; exit 1; }
echo "ok: server registered over mutual TLS with the worker token"
if TUNEFARM_CLIENT_TOKEN=ct "$bin" status --tracker "$addr" --tls_ca ca.pem > nocert.out 2>&1; then
  echo "FAIL: a client without a certificate reached the mTLS tracker"; exit 1
fi
echo "ok: client without a certificate refused"
TUNEFARM_CLIENT_TOKEN=wt "$bin" tune dense --shape 16,16,16 --trials 4 --batch 4 --strategy random \
  --top_k 0 --tracker "$addr" --key cpu-mtls --tls_ca ca.pem --tls_client_cert tuner.pem \
  --tls_client_key tuner.key --db "$tmp/mtls-wrong.db" > wrongrole.out 2>&1
grep -q "UNAUTHENTICATED" wrongrole.out || { echo "FAIL: worker token submitted work"; cat wrongrole.out; exit 1; }
echo "ok: the worker token cannot submit work"
TUNEFARM_CLIENT_TOKEN=ct "$bin" tune dense --shape 16,16,16 --trials 4 --batch 4 --strategy random \
  --top_k 0 --tracker "$addr" --key cpu-mtls --tls_ca ca.pem --tls_client_cert tuner.pem \
  --tls_client_key tuner.key --db "$tmp/mtls.db" > mtune.out 2> mtune.err \
  || { cat mtune.out mtune.err; exit 1; }
grep -q "succeeded" mtune.out || { cat mtune.out mtune.err; exit 1; }
echo "ok: tuning job measured over mutual TLS with the client token"
echo "PASS"
