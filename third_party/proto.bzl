"""cc_grpc_library: C++ protobuf + gRPC code from .proto files with Debian's protoc.

    cc_grpc_library(name = "job", srcs = ["job.proto"], deps = [":common"])

generates job.pb.{h,cc} (and job.grpc.pb.{h,cc} when the file declares a service) next to
the BUILD file and wraps them in a cc_library. Imports are resolved from the workspace root,
so `import "proto/common.proto";` works from any package.
"""

def cc_grpc_library(name, srcs, deps = [], grpc = True, visibility = None):
    outs = []
    for src in srcs:
        if not src.endswith(".proto"):
            fail("cc_grpc_library srcs must be .proto files: " + src)
        base = src[:-len(".proto")]
        outs += [base + ".pb.h", base + ".pb.cc"]
        if grpc:
            outs += [base + ".grpc.pb.h", base + ".grpc.pb.cc"]

    # Every proto this one may import, so protoc sees them in the sandbox.
    proto_deps = [d + "_protos" for d in deps]
    native.filegroup(
        name = name + "_protos",
        srcs = srcs + proto_deps,
        visibility = visibility,
    )

    plugin = " --plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin --grpc_out=$(GENDIR)" if grpc else ""
    own = " ".join([native.package_name() + "/" + s for s in srcs])
    native.genrule(
        name = name + "_codegen",
        srcs = [name + "_protos"],
        outs = outs,
        cmd = "protoc -I. --cpp_out=$(GENDIR)" + plugin + " " + own,
        message = "protoc " + name,
    )
    hdrs = [o for o in outs if o.endswith(".h")]
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = hdrs,
        deps = deps + ["//third_party:grpc", "//third_party:protobuf"],
        visibility = visibility,
    )
