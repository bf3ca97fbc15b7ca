"""Python client of the tunefarm job service (`tunefarm serve`, proto/job.proto).

    import tunefarm
    client = tunefarm.Client("localhost:9191")
    job = client.submit(template="dense", args=[256, 256, 256], trials=200)
    final = client.wait(job)                      # a progress line on a terminal
    print(client.best(template="dense", args=[256, 256, 256])[0].gflops)
    client.export(job, path="libkernels.so")      # the tuned kernels as a shared library

Failed calls raise tunefarm.Error (with .code, a grpc.StatusCode, and .message). Job
statuses are the tunefarm.v1.JobStatus messages of proto/job.proto.
"""

from tunefarm._stubs import job_pb2, record_pb2, task_pb2
from tunefarm.client import Best, Client, Error, Job, Task
from tunefarm.progress import format_progress, is_terminal, state_name

# Job states (tunefarm.v1.JobState).
QUEUED = job_pb2.JOB_QUEUED
RUNNING = job_pb2.JOB_RUNNING
SUCCEEDED = job_pb2.JOB_SUCCEEDED
FAILED = job_pb2.JOB_FAILED
CANCELLED = job_pb2.JOB_CANCELLED

__all__ = [
    "Best", "CANCELLED", "Client", "Error", "FAILED", "Job", "QUEUED", "RUNNING", "SUCCEEDED",
    "Task", "format_progress", "is_terminal", "job_pb2", "record_pb2", "state_name", "task_pb2",
]
