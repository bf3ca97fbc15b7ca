"""The job service client: submit, watch, cancel and list tuning jobs, query the best configs of
the tuning log, and export them as a shared library (proto/job.proto's JobService)."""

import dataclasses
import json
import os
import sys
import tempfile

import grpc

from tunefarm import progress as _progress
from tunefarm._stubs import job_pb2, job_pb2_grpc, record_pb2, task_pb2

# Deadline of a unary call, in seconds (an export compiles: it has its own).
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_EXPORT_TIMEOUT_S = 600.0
# Largest message the client accepts: the service's export limit (64 MiB) plus its overhead.
_MAX_RECEIVE_BYTES = 128 << 20
# Largest message it sends (a long program text; the service bounds what it accepts).
_MAX_SEND_BYTES = 64 << 20


class Error(Exception):
    """A call the service refused or that failed: `code` is a grpc.StatusCode
    (INVALID_ARGUMENT, NOT_FOUND, UNAUTHENTICATED, RESOURCE_EXHAUSTED, UNAVAILABLE, ...; each
    RPC's codes are listed in proto/job.proto) and `message` the service's explanation."""

    def __init__(self, code, message):
        super().__init__("%s: %s" % (code.name, message))
        self.code = code
        self.message = message

    @classmethod
    def from_rpc_error(cls, e):
        return cls(e.code(), e.details() or "")


@dataclasses.dataclass(frozen=True)
class Task:
    """One operator of a multi-task job: a template with its shape args, or a program of the
    tensor-expression language with its shape bindings (tuner/README.md teaches it)."""

    template: str = ""
    args: tuple = ()
    dtype: str = ""
    # How many times the operator runs per inference (weights the task scheduler); 0 = 1.
    weight: float = 0.0
    program: str = ""
    shapes: dict = dataclasses.field(default_factory=dict)
    program_name: str = ""

    def to_proto(self):
        if bool(self.template) == bool(self.program):
            raise ValueError("a task is a template or a program: give exactly one")
        if self.program and self.args:
            raise ValueError("a program takes shapes={...}, not args")
        if self.template and self.shapes:
            raise ValueError("a template takes args=[...], not shapes")
        return task_pb2.TaskSpec(
            template_name=self.template, args=[int(a) for a in self.args], dtype=self.dtype,
            weight=self.weight, program=self.program, program_name=self.program_name,
            shapes={k: int(v) for k, v in self.shapes.items()})


@dataclasses.dataclass(frozen=True)
class Best:
    """One of the best recorded configs of a workload (QueryBest's BestRecord)."""

    template: str
    args: str
    gflops: float
    mean_cost_s: float
    config: dict
    config_json: str
    target: str
    device_key: str
    # False: the config was measured on the nearest recorded shape (nearest=True).
    exact: bool
    distance: float
    record: object  # the full tunefarm.v1.Record
    # True: timed on an emulated device (a board under qemu-user): the emulator's speed, only
    # returned when no real device measured this workload on the target.
    emulated: bool = False
    # True: timed cold (every run after its weights and outputs left the caches).
    cold_cache: bool = False
    # mean_cost_s is the median of `runs` measurements; confirmed: those are re-measurements
    # after the config's first (a tuning job's top configs), the rule its winner is picked by.
    runs: int = 1
    confirmed: bool = False
    # What it ranked by: mean_cost_s, or more for a config measured once that a config measured
    # again beat on its first run (rows come in rank_s order).
    rank_s: float = 0.0


class Job:
    """A submitted job; str(job) is its id. Every method is the client's, with this job."""

    def __init__(self, client, job_id):
        self.client = client
        self.id = job_id

    def __str__(self):
        return self.id

    def __repr__(self):
        return "Job(%r)" % self.id

    def __eq__(self, other):
        return isinstance(other, Job) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def status(self):
        return self.client.get(self)

    def watch(self, progress=None, timeout=None):
        return self.client.watch(self, progress=progress, timeout=timeout)

    def wait(self, progress=None, timeout=None):
        return self.client.wait(self, progress=progress, timeout=timeout)

    def cancel(self):
        return self.client.cancel(self)


def _job_id(job):
    if isinstance(job, Job):
        return job.id
    if isinstance(job, job_pb2.JobStatus):
        return job.job_id
    if isinstance(job, str) and job:
        return job
    raise TypeError("a job is a Job, a JobStatus or a job id string, got %r" % (job,))


def _template_args(template, args, dtype):
    """The tuning log's args JSON of a template workload: shape args then dtype."""
    if not template or args is None:
        raise ValueError("give a workload, or template= and args=")
    return json.dumps([int(a) for a in args] + [dtype or "float32"], separators=(",", ":"))


class Client:
    """A connection to a job service (`tunefarm serve`).

        client = tunefarm.Client("localhost:9191", token=os.environ.get("TUNEFARM_TOKEN"))

    token: the service's client token (its --client_token or --token), sent on every call.
    tls: None (plaintext), True (TLS verified against the system's CA roots) or the path of a
    PEM CA file that signed the service's certificate; server_name overrides the name expected
    in the certificate. Failed calls raise tunefarm.Error; a Client is a context manager.
    """

    def __init__(self, address, token=None, tls=None, server_name=None,
                 timeout=DEFAULT_TIMEOUT_S):
        options = [("grpc.max_receive_message_length", _MAX_RECEIVE_BYTES),
                   ("grpc.max_send_message_length", _MAX_SEND_BYTES)]
        if tls is None or tls is False:
            self._channel = grpc.insecure_channel(address, options=options)
        else:
            root = None
            if tls is not True:
                with open(tls, "rb") as f:
                    root = f.read()
            if server_name:
                options.append(("grpc.ssl_target_name_override", server_name))
            self._channel = grpc.secure_channel(
                address, grpc.ssl_channel_credentials(root_certificates=root), options=options)
        self._stub = job_pb2_grpc.JobServiceStub(self._channel)
        # The same metadata as the C++ clients' AttachToken (common/transport.cc).
        self._metadata = (("authorization", "Bearer " + token),) if token else ()
        self._timeout = timeout

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _call(self, method, request, timeout=None):
        try:
            return method(request, metadata=self._metadata,
                          timeout=self._timeout if timeout is None else timeout)
        except grpc.RpcError as e:
            raise Error.from_rpc_error(e) from None

    # Jobs.

    def submit(self, template=None, args=None, *, dtype="", program=None, shapes=None,
               program_name="", tasks=None, model=None, model_path=None, input_shapes="",
               trials, target="", device_key="", strategy="", batch_size=0, early_stopping=0,
               seed=0, top_k=0, top_k_rounds=0, name="", cache=None):
        """Submits a tuning job and returns its Job. What to tune is one of:
          template="dense", args=[M, N, K], dtype="float32"   a template of the registry
          program="C[i, j] = ...", shapes={"M": 64, ...}       a tensor-expression program
          tasks=[Task(...), ...]                               several operators, one budget
          model="resnet18.onnx" (a local file) or model=b"..." (its bytes)   a whole ONNX model:
              the service turns its fused groups into the tasks (the bytes travel in the
              request, up to the service's --max_model_mb)
          model_path="resnet18.onnx"                           a model on the service, under
              its --model_dir
        input_shapes binds a model's dynamic dimensions: "input=1,3,224,224".
        trials is the total number of measurements; target ("" = the service's host CPU),
        device_key ("" = the service's default), strategy ("xgb", "ga", "random", "grid"),
        batch_size, early_stopping, seed, top_k and top_k_rounds are JobSpec's fields
        (proto/job.proto).
        cache: "cold" times every run after its weights and outputs are evicted from the caches
        (TVM's enable_cpu_cache_flush), "warm" back to back; None = the service decides (a
        model's job cold, others as the service is set).
        Raises Error INVALID_ARGUMENT for a bad spec (unknown template, bad shape, trials <= 0,
        unknown strategy or device key), RESOURCE_EXHAUSTED when the service runs all the jobs
        it allows; ValueError when the arguments name no task or several kinds."""
        caches = {None: job_pb2.TIMING_CACHE_UNSPECIFIED, "warm": job_pb2.TIMING_CACHE_WARM,
                  "cold": job_pb2.TIMING_CACHE_COLD}
        if cache not in caches:
            raise ValueError("cache= is 'cold', 'warm' or None, not %r" % (cache,))
        given = [x is not None for x in (template, program, tasks, model, model_path)]
        if sum(given) != 1:
            raise ValueError(
                "submit takes one of template=, program=, tasks=, model= or model_path=")
        model_spec = None
        specs = []
        if model is not None or model_path is not None:
            if isinstance(model, (bytes, bytearray)):
                onnx_bytes = bytes(model)
            elif model is not None:
                with open(os.fspath(model), "rb") as f:
                    onnx_bytes = f.read()
            else:
                onnx_bytes = b""
            model_spec = job_pb2.ModelSpec(onnx=onnx_bytes, path=model_path or "",
                                           input_shapes=input_shapes)
        elif tasks is not None:
            specs = [t.to_proto() for t in tasks]
            if not specs:
                raise ValueError("tasks= is empty")
        elif template is not None:
            specs = [Task(template=template, args=tuple(args or ()), dtype=dtype).to_proto()]
        else:
            specs = [Task(program=program, shapes=dict(shapes or {}),
                          program_name=program_name).to_proto()]
        spec = job_pb2.JobSpec(
            name=name, tasks=specs, target=target, device_key=device_key, trials=int(trials),
            strategy=strategy, batch_size=batch_size, early_stopping=early_stopping, seed=seed,
            top_k=top_k, top_k_rounds=top_k_rounds, model=model_spec, cache=caches[cache])
        response = self._call(self._stub.SubmitJob, job_pb2.SubmitJobRequest(spec=spec))
        return Job(self, response.job_id)

    def get(self, job):
        """The job's JobStatus now. Raises Error NOT_FOUND for an unknown job."""
        return self._call(self._stub.GetJob, job_pb2.JobRequest(job_id=_job_id(job)))

    def watch(self, job, progress=None, timeout=None):
        """Yields the job's JobStatus on every change until it ends (the last one is terminal:
        succeeded, failed or cancelled). progress: draw a progress line (trials, best GFLOP/s,
        ETA) on stderr; None = only when stderr is a terminal. timeout: seconds for the whole
        watch (Error DEADLINE_EXCEEDED past it); None = until the job ends. Raises Error
        NOT_FOUND for an unknown job, RESOURCE_EXHAUSTED when the service serves all the watch
        streams it allows."""
        if progress is None:
            progress = sys.stderr.isatty()
        bar = _progress.ProgressBar() if progress else None
        call = self._stub.WatchJob(job_pb2.JobRequest(job_id=_job_id(job)),
                                   metadata=self._metadata, timeout=timeout)
        try:
            for status in call:
                if bar is not None:
                    bar.update(status)
                yield status
        except grpc.RpcError as e:
            raise Error.from_rpc_error(e) from None
        finally:
            # The caller stopped early (break, an exception): end the stream on the service.
            call.cancel()
            if bar is not None:
                bar.close()

    def wait(self, job, progress=None, timeout=None):
        """Watches the job to its end and returns its last (terminal) JobStatus."""
        last = None
        for last in self.watch(job, progress=progress, timeout=timeout):
            pass
        if last is None:  # The stream ended without a status: ask once.
            last = self.get(job)
        return last

    def cancel(self, job):
        """Stops the job (its measurements so far stay in the log) and returns its JobStatus;
        the job ends after its current round. Raises Error NOT_FOUND for an unknown job."""
        return self._call(self._stub.CancelJob, job_pb2.JobRequest(job_id=_job_id(job)))

    def jobs(self):
        """Every job the service knows, as JobStatus messages."""
        return list(self._call(self._stub.ListJobs, job_pb2.ListJobsRequest()).jobs)

    # The tuning log.

    def _workloads(self, workload, template, args, dtype):
        """(template name, args JSON) pairs from the forms best() and export() accept."""
        if workload is None:
            return [(template, _template_args(template, args, dtype))]
        if template is not None or args is not None:
            raise ValueError("give a workload, or template= and args=, not both")
        if isinstance(workload, (list, tuple)) and workload and not isinstance(workload[0], str):
            out = []
            for w in workload:
                out.extend(self._workloads(w, None, None, dtype))
            return out
        if isinstance(workload, tuple) and len(workload) == 2:
            name, wargs = workload
            if not isinstance(wargs, str):
                wargs = _template_args(name, wargs, dtype)
            return [(name, wargs)]
        if isinstance(workload, task_pb2.TaskSpec):
            raise TypeError("a TaskSpec has no logged name: pass its job's TaskStatus")
        if isinstance(workload, job_pb2.TaskStatus):
            return [(workload.workload_template, workload.workload_args)]
        # A job: every task's workload, read from its status.
        status = workload if isinstance(workload, job_pb2.JobStatus) else self.get(workload)
        named = [(t.workload_template, t.workload_args) for t in status.tasks
                 if t.workload_template]
        if not named:
            raise ValueError("job %s names no workloads yet" % status.job_id)
        return named

    def best(self, workload=None, *, template=None, args=None, dtype="float32", k=1,
             target="llvm", device_key="", nearest=False):
        """The k best recorded configs of one workload, best first, as Best rows (GFLOP/s,
        config, ...); [] when nothing is recorded. The workload is template= and args= (with
        dtype), a (template name, args JSON) pair, a job's TaskStatus, or a one-task Job.
        target: as tuned ("llvm" = the service's host CPU, what a job with no target uses).
        nearest: answer a miss with the nearest recorded shape of the same template.
        Raises Error INVALID_ARGUMENT for a bad k, template or args."""
        workloads = self._workloads(workload, template, args, dtype)
        if len(workloads) != 1:
            raise ValueError("best() takes one workload; this job has %d tasks: pass one of "
                             "its status's tasks" % len(workloads))
        name, wargs = workloads[0]
        request = record_pb2.QueryBestRequest(
            workload=record_pb2.Workload(template_name=name, args=wargs), target=target,
            device_key=device_key, k=k, nearest_on_miss=nearest)
        try:
            response = self._call(self._stub.QueryBest, request)
        except Error as e:
            if e.code == grpc.StatusCode.NOT_FOUND:
                return []
            raise
        rows = []
        for b in response.best:
            r = b.record
            rows.append(Best(
                template=r.workload.template_name, args=r.workload.args, gflops=b.gflops,
                mean_cost_s=b.mean_cost, config=json.loads(r.config_json or "{}"),
                config_json=r.config_json, target=r.target, device_key=r.device_key,
                exact=b.exact, distance=b.distance, record=r, emulated=r.device.emulated,
                cold_cache=r.cold_cache, runs=b.runs, confirmed=b.confirmed,
                rank_s=b.rank_s))
        return rows

    def export(self, workloads=None, *, template=None, args=None, dtype="float32",
               target="llvm", device_key="", allow_nearest=False, path=None, header=None,
               timeout=DEFAULT_EXPORT_TIMEOUT_S):
        """Builds the best recorded config of each workload into one shared library on the
        service (`tunefarm export`) and writes it to `path` (default: "libkernels.so", or
        "kernels.ptx" for a cuda target) and its C header to `header` (default: kernels.h next
        to the library); returns the library's path. Workloads: template= and args=, a
        (template name, args JSON) pair, a TaskStatus, a Job (all its tasks), or a list of
        these. Raises Error NOT_FOUND when a workload has no tuned config (allow_nearest
        builds the nearest shape's plain schedule instead), INVALID_ARGUMENT for a bad
        workload or target, RESOURCE_EXHAUSTED when the library is over the service's limit."""
        pairs = self._workloads(workloads, template, args, dtype)
        request = job_pb2.ExportLibraryRequest(
            workloads=[record_pb2.Workload(template_name=n, args=a) for n, a in pairs],
            target=target, device_key=device_key, allow_nearest=allow_nearest)
        response = self._call(self._stub.ExportLibrary, request, timeout=timeout)
        if path is None:
            # The service names the file; only its two known names are taken from it (never a
            # path: a service must not choose where this process writes).
            if response.library_name not in ("libkernels.so", "kernels.ptx"):
                raise Error(grpc.StatusCode.INTERNAL,
                            "the service named the library %r; pass path=" % response.library_name)
            path = response.library_name
        path = os.fspath(path)
        if header is None:
            header = os.path.join(os.path.dirname(path), "kernels.h")
        _write_atomically(path, response.library)
        _write_atomically(os.fspath(header), response.header.encode())
        return path


def _write_atomically(path, data):
    """Writes through a temporary file renamed over `path`: a process that has the old library
    loaded keeps its mapping intact, and a reader never sees half a file."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tunefarm-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
