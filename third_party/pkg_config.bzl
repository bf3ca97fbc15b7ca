"""A repository rule that turns Debian's pkg-config entries into cc_library targets.

Runs `pkg-config --libs` (and `--cflags`, for the -D macros a library was built with, which its
users must define too) at fetch time (no network involved) so link lines follow the
installed packages instead of being copied by hand. A package without a .pc file is
given as a literal `-l` list.
"""

def _dedupe(flags):
    seen = {}
    out = []
    for f in flags:
        if f not in seen:
            seen[f] = True
            out.append(f)
    return out

def _pkg_config_repository_impl(ctx):
    build = ['package(default_visibility = ["//visibility:public"])', ""]
    for name, spec in ctx.attr.libs.items():
        flags = []
        defines = []
        for item in spec.split(" "):
            if not item:
                continue
            if item.startswith("-"):
                flags.append(item)
                continue
            res = ctx.execute(["pkg-config", "--libs", item])
            if res.return_code != 0:
                fail("pkg-config cannot find '%s' (%s). Run deploy/setup.sh to install " % (item, res.stderr.strip()) +
                     "the Debian packages tunefarm builds against.")
            flags.extend([f for f in res.stdout.strip().split(" ") if f])
            res = ctx.execute(["pkg-config", "--cflags", item])
            defines.extend([f[2:] for f in res.stdout.strip().split(" ") if f.startswith("-D")])
        build.append("cc_library(")
        build.append('    name = "%s",' % name)
        build.append("    linkopts = %s," % repr(_dedupe(flags)))
        if defines:
            build.append("    defines = %s," % repr(_dedupe(defines)))
        build.append(")")
        build.append("")
    ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % ctx.name)
    ctx.file("BUILD.bazel", "\n".join(build))

pkg_config_repository = repository_rule(
    implementation = _pkg_config_repository_impl,
    attrs = {
        # target name -> space-separated pkg-config modules and/or literal linker flags.
        "libs": attr.string_dict(mandatory = True),
    },
    local = True,
    environ = ["PKG_CONFIG_PATH"],
)
