"""A libFuzzer target and its short run in the test suite."""

# libFuzzer's driver from Debian's libclang-rt-16-dev, for the default (gcc) build: the target
# runs on its corpus with random mutations but without coverage feedback. Under
# `--config=fuzz` (clang-16, see .bazelrc) the code is instrumented and -fsanitize=fuzzer links
# the same driver.
_LIBFUZZER = "/usr/lib/llvm-16/lib/clang/16/lib/linux/libclang_rt.fuzzer-x86_64.a"

def fuzz_target(name, deps, seconds = 3):
    """`name`: a cc_binary from name.cc with corpus/<name without _fuzzer>/ as its seeds;
    `name`_test runs it for `seconds` on that corpus."""
    corpus = "corpus/" + name[:-len("_fuzzer")]
    native.cc_binary(
        name = name,
        srcs = [name + ".cc"],
        deps = deps,
        linkopts = select({
            "//tests/fuzz:instrumented": ["-fsanitize=fuzzer"],
            "//conditions:default": [_LIBFUZZER, "-lpthread", "-ldl", "-lrt"],
        }),
    )
    native.filegroup(
        name = name + "_corpus",
        srcs = native.glob([corpus + "/*"]),
    )
    native.sh_test(
        name = name + "_test",
        size = "small",
        srcs = ["run_fuzzer.sh"],
        args = ["$(location :%s)" % name, "tests/fuzz/" + corpus, str(seconds)],
        data = [":" + name, ":" + name + "_corpus"],
    )
