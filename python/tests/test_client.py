"""The Python client against a real `tunefarm serve` (conftest.py): submit and watch a small
job, query and export its best config, list and cancel jobs, programs and multi-task jobs, TLS,
and the documented error codes.
No test depends on how fast the machine tunes: every wait is bounded and generous."""

import ctypes
import io
import shutil
import subprocess
import sys

import grpc
import pytest

import tunefarm

SHAPE = [32, 32, 32]
TRIALS = 8
# Bound on a small job's whole run (it takes about a second when the machine is idle).
JOB_TIMEOUT_S = 120
PROGRAM = """A = input(float32, [M, K]); W = input(float32, [N, K])
C[i, j] = sum(k: A[i, k] * W[j, k])
"""


@pytest.fixture(scope="module")
def tuned(service):
    """A small dense job, submitted and watched to its end: (job id, every status seen)."""
    with service.client() as c:
        job = c.submit(template="dense", args=SHAPE, trials=TRIALS, batch_size=4,
                       strategy="random", name="pytest-dense")
        statuses = list(c.watch(job, progress=False, timeout=JOB_TIMEOUT_S))
    return job.id, statuses


def test_Submit_SmallDenseJob_WatchedToSuccess(tuned, service):
    job_id, statuses = tuned
    assert statuses, "watch yielded nothing"
    final = statuses[-1]
    assert final.job_id == job_id
    assert final.state == tunefarm.SUCCEEDED, final.error + service.stderr()
    assert final.trials_done == TRIALS and final.trials_total == TRIALS
    assert final.best_gflops > 0
    versions = [s.version for s in statuses]
    assert versions == sorted(set(versions)), "each version is sent once, in order"
    assert all(not tunefarm.is_terminal(s.state) for s in statuses[:-1])


def test_Best_TunedWorkload_RowsWithGflops(client, tuned):
    job_id, statuses = tuned
    rows = client.best(template="dense", args=SHAPE, k=3)
    assert 1 <= len(rows) <= 3
    assert all(r.gflops > 0 and r.mean_cost_s > 0 for r in rows)
    # best ranks as the job picked its winner (by its top configs' re-measurements), so on a
    # log that holds this job alone the first row is the job's winner.
    assert rows[0].confirmed and 1 <= rows[0].runs <= 3
    assert [r.rank_s for r in rows] == sorted(r.rank_s for r in rows)
    assert rows[0].gflops == pytest.approx(statuses[-1].best_gflops, rel=1e-6)
    assert rows[0].template == "dense"
    assert rows[0].args == '[32,32,32,"float32"]'
    assert rows[0].exact and isinstance(rows[0].config, dict)
    assert not rows[0].emulated  # the embedded farm's device is this machine's CPU
    # The same workload named by the job's status, or by the (one-task) job itself.
    status = client.get(job_id)
    assert client.best(status.tasks[0])[0].config_json == rows[0].config_json
    assert client.best(job_id)[0].config_json == rows[0].config_json
    # As the log names it, with the target written out.
    pair = (status.tasks[0].workload_template, status.tasks[0].workload_args)
    assert client.best(pair, target=rows[0].target)[0].config_json == rows[0].config_json


def test_Best_UntunedWorkload_Empty(client, tuned):
    assert client.best(template="dense", args=[8, 8, 8]) == []


def test_Jobs_AfterSubmit_ListsTheJob(client, tuned):
    job_id, _ = tuned
    jobs = {j.job_id: j for j in client.jobs()}
    assert job_id in jobs
    assert jobs[job_id].state == tunefarm.SUCCEEDED
    assert jobs[job_id].spec.name == "pytest-dense"


def test_Export_TunedWorkload_WritesLoadableLibrary(client, tuned, tmp_path):
    job_id, _ = tuned
    want = tmp_path / "libkernels.so"
    path = client.export(template="dense", args=SHAPE, path=want)
    assert path == str(want)
    lib = ctypes.CDLL(path)
    assert hasattr(lib, "dense_32_32_32_float32")
    assert "dense_32_32_32_float32" in (tmp_path / "kernels.h").read_text()
    # A job's workloads, with the header where asked.
    (tmp_path / "job").mkdir()
    path = client.export(job_id, path=tmp_path / "job" / "libjob.so",
                         header=tmp_path / "job" / "job.h")
    assert hasattr(ctypes.CDLL(path), "dense_32_32_32_float32")
    assert (tmp_path / "job" / "job.h").exists()


def test_Export_ServiceNamesAPath_Refused(client, tmp_path, monkeypatch):
    from tunefarm._stubs import job_pb2
    evil = job_pb2.ExportLibraryResponse(library_name="../../evil.so", library=b"x", header="h")
    monkeypatch.setattr(client, "_call", lambda *a, **k: evil)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(tunefarm.Error) as e:
        client.export(template="dense", args=[8, 8, 8])
    assert e.value.code == grpc.StatusCode.INTERNAL
    assert not (tmp_path.parent.parent / "evil.so").exists()


def test_Export_UntunedWorkload_NotFound(client, tuned, tmp_path):
    with pytest.raises(tunefarm.Error) as e:
        client.export(template="dense", args=[8, 8, 8], path=tmp_path / "lib.so")
    assert e.value.code == grpc.StatusCode.NOT_FOUND
    assert not (tmp_path / "lib.so").exists()


def test_Export_BadTarget_InvalidArgument(client, tuned, tmp_path):
    with pytest.raises(tunefarm.Error) as e:
        client.export(template="dense", args=SHAPE, target="fpga", path=tmp_path / "lib.so")
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT


def test_Cancel_RunningJob_EndsCancelled(client):
    job = client.submit(template="dense", args=[64, 64, 64], trials=100000, batch_size=2,
                        strategy="random")
    running = False
    for status in client.watch(job, progress=False, timeout=JOB_TIMEOUT_S):
        if status.state == tunefarm.RUNNING:
            running = True
            break  # Leaving the loop ends the watch stream.
    assert running, "the job ended before it ran: %s" % status
    client.cancel(job)
    final = client.wait(job, progress=False, timeout=JOB_TIMEOUT_S)
    assert final.state == tunefarm.CANCELLED
    assert final.trials_done < 100000
    assert {j.job_id: j.state for j in client.jobs()}[job.id] == tunefarm.CANCELLED


def test_Submit_Program_TunesGeneratedSpace(client):
    job = client.submit(program=PROGRAM, shapes={"M": 16, "N": 16, "K": 16},
                        program_name="pytest_dense", trials=4, batch_size=4, strategy="random")
    final = job.wait(progress=False, timeout=JOB_TIMEOUT_S)
    assert final.state == tunefarm.SUCCEEDED, final.error
    task = final.tasks[0]
    assert task.workload_template.startswith("expr:pytest_dense:")
    assert client.best(task)[0].gflops > 0


def test_Submit_TwoTasks_BothTunedAndExported(client, tmp_path):
    job = client.submit(tasks=[tunefarm.Task(template="dense", args=[16, 16, 16]),
                               tunefarm.Task(template="dense", args=[16, 32, 16], weight=2)],
                        trials=4, batch_size=2, strategy="random")
    final = job.wait(progress=False, timeout=JOB_TIMEOUT_S)
    assert final.state == tunefarm.SUCCEEDED, final.error
    assert [t.spec.args for t in final.tasks] == [[16, 16, 16], [16, 32, 16]]
    lib = ctypes.CDLL(client.export(job, path=tmp_path / "libtwo.so"))
    assert hasattr(lib, "dense_16_16_16_float32") and hasattr(lib, "dense_16_32_16_float32")


def _gemm_relu_onnx():
    """A one-layer model (Gemm + bias + Relu, 8 -> 16) built with onnx.helper (python3-onnx)."""
    import onnx  # python3-onnx: deploy/setup.sh --tests installs it
    from onnx import TensorProto, helper
    import numpy
    w = helper.make_tensor("W", TensorProto.FLOAT, [16, 8],
                           numpy.linspace(-1, 1, 128, dtype=numpy.float32).tolist())
    b = helper.make_tensor("B", TensorProto.FLOAT, [16], [0.1] * 16)
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "W", "B"], ["h"], transB=1),
         helper.make_node("Relu", ["h"], ["y"])],
        "gemm_relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])],
        initializer=[w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model.SerializeToString()


def test_Submit_Model_ItsGroupsBecomeTheTasks(client, tmp_path):
    path = tmp_path / "gemm_relu.onnx"
    path.write_bytes(_gemm_relu_onnx())
    job = client.submit(model=path, trials=4, batch_size=4, strategy="random")
    final = job.wait(progress=False, timeout=JOB_TIMEOUT_S)
    assert final.state == tunefarm.SUCCEEDED, final.error
    assert len(final.tasks) >= 1
    assert final.trials_done == 4
    assert client.best(final.tasks[0])[0].gflops > 0
    # A model's layers are timed as they run in the network: cold.
    assert final.spec.cache == tunefarm.job_pb2.TIMING_CACHE_COLD


def test_Submit_CacheCold_JobTimedCold(client):
    job = client.submit(template="dense", args=[24, 24, 24], trials=2, batch_size=2,
                        strategy="random", cache="cold")
    final = job.wait(progress=False, timeout=JOB_TIMEOUT_S)
    assert final.state == tunefarm.SUCCEEDED, final.error
    assert final.spec.cache == tunefarm.job_pb2.TIMING_CACHE_COLD
    best = client.best(template="dense", args=[24, 24, 24])
    assert best and all(b.cold_cache for b in best)
    with pytest.raises(ValueError):
        client.submit(template="dense", args=[8, 8, 8], trials=2, cache="lukewarm")


def test_Submit_CorruptModel_InvalidArgument(client):
    with pytest.raises(tunefarm.Error) as e:
        client.submit(model=b"not an onnx model", trials=4)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT


def test_Submit_UnknownTemplate_InvalidArgument(client):
    with pytest.raises(tunefarm.Error) as e:
        client.submit(template="no_such_operator", args=[8, 8, 8], trials=4)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "no_such_operator" in e.value.message


def test_Submit_NoTrials_InvalidArgument(client):
    with pytest.raises(tunefarm.Error) as e:
        client.submit(template="dense", args=[8, 8, 8], trials=0)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT


def test_Submit_TemplateAndProgram_ValueError(client):
    with pytest.raises(ValueError):
        client.submit(template="dense", args=[8, 8, 8], program=PROGRAM, trials=4)


@pytest.mark.parametrize("token", ["not-the-token", None])
def test_Calls_BadToken_Unauthenticated(service, token):
    with service.client(token=token) as c:
        with pytest.raises(tunefarm.Error) as e:
            c.jobs()
        assert e.value.code == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(tunefarm.Error) as e:
            c.submit(template="dense", args=[8, 8, 8], trials=4)
        assert e.value.code == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(tunefarm.Error) as e:
            list(c.watch("job-1", progress=False, timeout=30))
        assert e.value.code == grpc.StatusCode.UNAUTHENTICATED


def test_UnknownJob_NotFound(client):
    for call in (client.get, client.cancel,
                 lambda j: list(client.watch(j, progress=False, timeout=30))):
        with pytest.raises(tunefarm.Error) as e:
            call("job-does-not-exist")
        assert e.value.code == grpc.StatusCode.NOT_FOUND


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make a certificate")
def test_Tls_CaFile_CallsSucceed_PlaintextClientUnavailable(start_service, tmp_path):
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem",
         "-out", "cert.pem", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        cwd=tmp_path, check=True, capture_output=True)
    with start_service(str(tmp_path), "--tls_cert", str(tmp_path / "cert.pem"),
               "--tls_key", str(tmp_path / "key.pem")) as tls_service:
        with tunefarm.Client(tls_service.address, tls=str(tmp_path / "cert.pem")) as c:
            assert c.jobs() == []
            with pytest.raises(tunefarm.Error) as e:
                c.get("job-1")
            assert e.value.code == grpc.StatusCode.NOT_FOUND
        with tunefarm.Client(tls_service.address, timeout=10) as plain:
            with pytest.raises(tunefarm.Error) as e:
                plain.jobs()
            assert e.value.code == grpc.StatusCode.UNAVAILABLE


def test_Watch_ProgressTrue_DrawsLineOnStderr(client, tuned, monkeypatch):
    job_id, _ = tuned
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    list(client.watch(job_id, progress=True, timeout=60))
    out = stream.getvalue()
    assert "%d/%d trials" % (TRIALS, TRIALS) in out
    assert "GFLOP/s" in out and "succeeded" in out
    assert out.endswith("\n")


def test_Watch_NotATerminal_DrawsNothing(client, tuned, monkeypatch):
    job_id, _ = tuned
    stream = io.StringIO()  # isatty() is False, as for a pipe or a file.
    monkeypatch.setattr(sys, "stderr", stream)
    list(client.watch(job_id, timeout=60))
    assert stream.getvalue() == ""


def test_FormatProgress_RunningJob_TrialsBestAndEta():
    status = tunefarm.job_pb2.JobStatus(job_id="job-7", state=tunefarm.RUNNING, trials_done=40,
                                        trials_total=100, best_gflops=51.3, eta_s=42)
    assert tunefarm.format_progress(status) == (
        "job-7 [##########--------------]  40/100 trials  best 51.3 GFLOP/s  ETA 0:42  running")
