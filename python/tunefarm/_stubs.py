"""The generated protobuf and gRPC modules (python/gen_stubs.sh, or Bazel's //python:stubs)."""

try:
    from tunefarm._proto import job_pb2, job_pb2_grpc, record_pb2, task_pb2  # noqa: F401
except ImportError as e:  # pragma: no cover - only without generated stubs
    raise ImportError(
        "tunefarm's protobuf modules are not generated: run python/gen_stubs.sh "
        "(needs Debian's protobuf-compiler and protobuf-compiler-grpc), or use the package "
        "from Bazel's //python:tunefarm (%s)" % e) from e
