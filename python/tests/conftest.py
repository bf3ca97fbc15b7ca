"""A real job service for the client's tests: `tunefarm serve --port 0` with the embedded local
farm (one worker) and a fresh tuning log, guarded by a token, started once per session.

The binary is $TUNEFARM_BIN (Bazel's //python:pytest_test sets it), else bazel-bin/cli/tunefarm
of this checkout."""

import contextlib
import os
import re
import subprocess
import time

import pytest

import tunefarm

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = "python-client-test-token"
# Bounds of the waits: generous, so a loaded machine passes; a hang still fails.
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 30


class Service:
    def __init__(self, address, log_dir):
        self.address = address
        self.log_dir = log_dir

    def client(self, token=TOKEN):
        return tunefarm.Client(self.address, token=token)

    def stderr(self):
        with open(os.path.join(self.log_dir, "serve.err")) as f:
            return f.read()


def _binary():
    path = os.environ.get("TUNEFARM_BIN") or os.path.join(REPO, "bazel-bin", "cli", "tunefarm")
    if not os.access(path, os.X_OK):
        pytest.exit("no tunefarm binary at %s: bazel build //cli:tunefarm, or set TUNEFARM_BIN"
                    % path, returncode=2)
    return path


@contextlib.contextmanager
def serve(log_dir, *flags, env=None):
    """Runs `tunefarm serve --port 0` (one local worker, a tuning log in `log_dir`, extra
    `flags`) until the block ends; yields its Service."""
    out_path = os.path.join(log_dir, "serve.out")
    with open(out_path, "w") as out, open(os.path.join(log_dir, "serve.err"), "w") as err:
        proc = subprocess.Popen(
            [_binary(), "serve", "--port", "0", "--host", "127.0.0.1", "--workers", "1",
             "--db", os.path.join(log_dir, "tuning.db"), "--min_repeat_ms", "1", *flags],
            stdout=out, stderr=err, env=env)
    try:
        port = None
        deadline = time.monotonic() + START_TIMEOUT_S
        while port is None and time.monotonic() < deadline and proc.poll() is None:
            with open(out_path) as f:
                m = re.search(r"listening on [0-9.]+:([0-9]+)", f.read())
            if m:
                port = int(m.group(1))
            else:
                time.sleep(0.1)
        if port is None:
            with open(os.path.join(log_dir, "serve.err")) as f:
                pytest.fail("tunefarm serve did not start (exit %s): %s" % (proc.poll(), f.read()))
        yield Service("127.0.0.1:%d" % port, log_dir)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def service(tmp_path_factory):
    # The token through the environment, as an operator would keep it off the command line.
    env = dict(os.environ, TUNEFARM_TOKEN=TOKEN)
    with serve(str(tmp_path_factory.mktemp("serve")), env=env) as s:
        yield s


@pytest.fixture(scope="session")
def start_service():
    """`serve`, for a test that needs a service of its own (other flags, such as TLS)."""
    return serve


@pytest.fixture
def client(service):
    with service.client() as c:
        yield c
