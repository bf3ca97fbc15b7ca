"""cross_sources: what deploy/arm64/build.sh compiles for a binary, read from the BUILD graph.

    cross_sources(name = "tunefarm_server_sources", binary = "//rpc_server:tunefarm_server")

writes `<name>.txt` with one line per item, following `deps` (and the `srcs` that lead from a
generated .pb.cc back to its .proto) from the binary:

    cc rpc_server/worker.cc            a C/C++ source of one of the project's targets
    proto proto/common.proto           a .proto whose generated code a target compiles
    proto proto/tracker.proto grpc     (grpc: its service stubs too)
    linkopt -rdynamic                  a link option of one of the project's own targets
    syslib -lgrpc++ -lgrpc ...         a system library target's link options, in order
    define NOMINMAX                    a define a system library target asks for

and carries every source file it names (headers and .proto files included) in its runfiles, so
that a test can run the cross build from them. The cross build links Debian's arm64 builds of
the same system libraries (the names do not depend on the architecture), so it cannot drift from
what Bazel builds.
"""

_CrossSourcesInfo = provider(fields = ["lines", "files"])

def _cross_sources_aspect_impl(target, ctx):
    lines = []
    files = []
    attr = ctx.rule.attr
    if target.label.workspace_name == "":
        for group in [getattr(attr, "srcs", []), getattr(attr, "hdrs", [])]:
            for src in group:
                for f in src.files.to_list():
                    if f.is_source:
                        files.append(f)
                        if f.extension in ["c", "cc", "cpp"] and ctx.rule.kind.startswith("cc_"):
                            lines.append("cc " + f.short_path)
                    elif f.basename.endswith(".grpc.pb.cc"):
                        lines.append("proto " + f.short_path[:-len(".grpc.pb.cc")] + ".proto grpc")
                    elif f.basename.endswith(".pb.cc"):
                        lines.append("proto " + f.short_path[:-len(".pb.cc")] + ".proto")
        for opt in getattr(attr, "linkopts", []):
            lines.append("linkopt " + opt)
    elif ctx.rule.kind == "cc_library":
        if getattr(attr, "linkopts", []):
            lines.append("syslib " + " ".join(attr.linkopts))
        for define in getattr(attr, "defines", []):
            lines.append("define " + define)
    deps = getattr(attr, "deps", []) + getattr(attr, "srcs", [])
    infos = [d[_CrossSourcesInfo] for d in deps if _CrossSourcesInfo in d]
    return [_CrossSourcesInfo(
        lines = depset(lines, transitive = [i.lines for i in infos]),
        files = depset(files, transitive = [i.files for i in infos]),
    )]

_cross_sources_aspect = aspect(
    implementation = _cross_sources_aspect_impl,
    attr_aspects = ["deps", "srcs"],
)

def _cross_sources_impl(ctx):
    info = ctx.attr.binary[_CrossSourcesInfo]
    seen = {}
    lines = []
    for line in info.lines.to_list():
        if line not in seen:
            seen[line] = True
            lines.append(line)
    # The .proto files themselves: an aspect cannot reach them (it does not visit the genrule
    # behind a generated .pb.cc), so `protos` names them, and a missing one fails the build.
    proto_files = {f.short_path: f for f in ctx.files.protos}
    for line in lines:
        parts = line.split(" ")
        if parts[0] == "proto" and parts[1] not in proto_files:
            fail("%s needs %s: add its cc_grpc_library's _protos filegroup to `protos`" %
                 (ctx.attr.binary.label, parts[1]))
    out = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(out, "\n".join(lines) + "\n")
    return [DefaultInfo(
        files = depset([out]),
        runfiles = ctx.runfiles(files = [out] + ctx.files.protos, transitive_files = info.files),
    )]

cross_sources = rule(
    implementation = _cross_sources_impl,
    attrs = {
        "binary": attr.label(mandatory = True, aspects = [_cross_sources_aspect]),
        # Filegroups holding every .proto the binary's generated code comes from.
        "protos": attr.label_list(allow_files = [".proto"]),
    },
)
