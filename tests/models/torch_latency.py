#!/usr/bin/python3
"""PyTorch's batch-1 latency of a model of make_model.py, in its best CPU configuration: frozen
TorchScript with optimize_for_inference (oneDNN), torch.set_num_threads(T) and as many OpenBLAS
threads (OPENBLAS_NUM_THREADS: its matmuls would otherwise use every core). The model and input
come from the same seed as make_model.py's, so the weights are the ones exported to ONNX.

  /usr/bin/python3 tests/models/torch_latency.py NAME --threads T [--runs N] [--profile]

Prints `torch NAME threads=T variant=V median_ms=... min_ms=...` for the fastest variant (an
encoder layer is timed both as PyTorch's no_grad fast path and as its decomposed operators,
alternately, and the other's median is printed too); with --profile, the operators' share of one
inference (torch.profiler) and the eager model's time per convolution, linear and attention
layer first.
"""
import argparse
import os
import re
import sys
import tempfile
import time


def threads_arg(argv):
    """--threads T (or --threads=T) from the command line, before argparse and torch load."""
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
    return "1"


# Debian's PyTorch does its matmuls (linear layers, attention) in the system BLAS, OpenBLAS
# built with pthreads, which ignores torch.set_num_threads and runs on every core: at "1
# thread" a BERT layer's GEMMs ran on both cores here (10.6 ms against 16.9 ms on one). Its
# thread count is fixed when it loads, so it is set here, before torch loads it.
os.environ["OPENBLAS_NUM_THREADS"] = threads_arg(sys.argv)

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_model  # noqa: E402


def onednn_primitives(f, x, runs):
    """The oneDNN primitives one inference of `f` runs, in order, each as (kind, problem, ms): its
    verbose mode's execution times (written to the process's stdout, read back from a file),
    median over `runs` inferences. None when they do not repeat alike from run to run."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+") as log:
        os.dup2(log.fileno(), 1)
        try:
            with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON):
                for _ in range(runs):
                    f(x)
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        log.seek(0)
        rows = [line.strip().split(",") for line in log if line.startswith("onednn_verbose,exec,")]
    if not rows or len(rows) % runs != 0:
        return None
    n = len(rows) // runs
    out = []
    for k in range(n):
        kinds = {rows[r * n + k][3] for r in range(runs)}
        if len(kinds) != 1:
            return None
        ms = sorted(float(rows[r * n + k][-1]) for r in range(runs))
        out.append((kinds.pop(), rows[k][-2], ms[len(ms) // 2]))
    return out


def print_layers(model, frozen, x, runs=10):
    """PyTorch's time per layer, for comparing with tunefarm's fused groups, in execution order.
    A convolution's is from the frozen graph (the one timed), which the profiler does not
    attribute per call: oneDNN's verbose times of its convolution primitive and of the
    primitives up to the next convolution (the ReLU, the residual sum, reorders), each
    convolution primitive matched to a Conv2d of its shape in the eager model's call order.
    Linear and attention
    layers (OpenBLAS, PyTorch's own kernels), and convolutions when the primitives do not line
    up, are timed in the eager model with hooks around each module. Medians over `runs`."""
    kinds = (torch.nn.Conv2d, torch.nn.Linear, torch.nn.MultiheadAttention)
    times, order, start = {}, [], {}

    def pre(name):
        def hook(module, inputs):
            start[name] = time.perf_counter()
        return hook

    def post(name):
        def hook(module, inputs, output):
            times.setdefault(name, []).append(time.perf_counter() - start[name])
            if name not in order:
                order.append(name)
        return hook

    shapes = {}

    def post_shape(name):
        def hook(module, inputs, output):
            shapes[name] = (tuple(inputs[0].shape), tuple(output.shape))
        return hook

    handles = []
    convs = {}
    for name, m in model.named_modules():
        if isinstance(m, kinds):
            handles.append(m.register_forward_pre_hook(pre(name)))
            handles.append(m.register_forward_hook(post(name)))
        if isinstance(m, torch.nn.Conv2d):
            convs[name] = m
            handles.append(m.register_forward_hook(post_shape(name)))
    # With autograd on, an encoder layer runs its modules one by one (under no_grad it takes
    # the fused fast path, which calls none of them and so fires no hook).
    with torch.enable_grad():
        for _ in range(runs):
            model(x)
    for h in handles:
        h.remove()
    ms = {name: 1e3 * sorted(t)[len(t) // 2] for name, t in times.items()}
    source = {name: "eager" for name in order}

    def problem(name):
        """A convolution's shape as oneDNN's verbose problem descriptor states it."""
        m, (i, o) = convs[name], shapes[name]
        return (m.in_channels, m.out_channels, i[2], o[2], m.kernel_size[0], m.stride[0], i[3],
                o[3], m.kernel_size[1], m.stride[1])

    def parse(desc):
        v = dict(re.findall(r"(ic|oc|ih|oh|kh|sh|iw|ow|kw|sw)(\d+)", desc))
        keys = ("ic", "oc", "ih", "oh", "kh", "sh", "iw", "ow", "kw", "sw")
        return tuple(int(v[k]) for k in keys) if all(k in v for k in keys) else None

    # Each convolution primitive goes to the first layer of its shape not yet matched (the
    # frozen graph may run a block's shortcut before its second convolution), and the other
    # primitives after it (ReLU, sum, reorders) to the same layer.
    prims = onednn_primitives(frozen, x, runs)
    if prims is not None:
        free = [name for name in order if name in convs]
        frozen_ms, current = {}, None
        for kind, desc, t in prims:
            if kind == "convolution":
                key = parse(desc)
                current = next((n for n in free if problem(n) == key), None)
                if current is None:
                    frozen_ms = None
                    break
                free.remove(current)
            if current is not None:
                frozen_ms[current] = frozen_ms.get(current, 0.0) + t
        if frozen_ms is not None and not free:
            for name, t in frozen_ms.items():
                ms[name] = t
                source[name] = "frozen"
    print("PyTorch per layer (convolutions: frozen graph, oneDNN's times; others: eager, "
          "hooks; median of %d):" % runs)
    for i, name in enumerate(order):
        print("  layer %-3d %-36s %9.3f ms  %s" % (i, name, ms[name], source[name]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    model, x = make_model.build(a.name)
    model.eval()
    variants = {}
    with torch.no_grad():
        variants["frozen"] = torch.jit.optimize_for_inference(
            torch.jit.freeze(torch.jit.trace(model, x)))
    if any(isinstance(m, torch.nn.TransformerEncoderLayer) for m in model.modules()):
        # Traced with autograd on, an encoder layer is its decomposed operators (matmuls,
        # softmax, layer norm), not the no_grad fast path (_transformer_encoder_layer_fwd):
        # both are timed, and the faster counts.
        variants["frozen decomposed"] = torch.jit.optimize_for_inference(
            torch.jit.freeze(torch.jit.trace(model, x, check_trace=False).eval()))
    # With T > 1 threads each variant is also timed with PyTorch's own operators on one thread
    # (OpenBLAS keeps its T): its OpenMP threads spin between operators and compete with
    # OpenBLAS's for the cores, and a BERT layer ran 2.8x faster that way on 2 cores here.
    configs = [(name, f, a.threads) for name, f in variants.items()]
    if a.threads > 1:
        configs += [(name + " omp1", f, 1) for name, f in variants.items()]
    times = {name: [] for name, _, _ in configs}
    with torch.no_grad():
        for f in variants.values():
            for _ in range(5):
                f(x)
        # Alternating rounds, so drift on a shared machine reaches every variant alike; a
        # change of thread count gets one untimed inference first (OpenMP resizes its team).
        for _ in range(a.runs):
            for name, f, threads in configs:
                if threads != torch.get_num_threads():
                    torch.set_num_threads(threads)
                    f(x)
                t0 = time.perf_counter()
                f(x)
                times[name].append(time.perf_counter() - t0)
    for t in times.values():
        t.sort()
    best = min(times, key=lambda k: times[k][len(times[k]) // 2])
    if a.profile:
        # At the thread count of the fastest configuration, the one compared.
        torch.set_num_threads(next(threads for name, _, threads in configs if name == best))
        with torch.no_grad():
            for name, f in variants.items():
                f(x)
                with torch.profiler.profile(
                        activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                    f(x)
                print("PyTorch (%s, %d OpenMP threads):" % (name, torch.get_num_threads()))
                print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
            print_layers(model, variants["frozen"], x)
    others = " ".join("%s_median_ms=%.3f" % (k.replace(" ", "_"), 1e3 * t[len(t) // 2])
                      for k, t in times.items() if k != best)
    t = times[best]
    print("torch %s threads=%d variant=%s %smedian_ms=%.3f min_ms=%.3f" %
          (a.name, a.threads, best.replace(" ", "_"), others + " " if others else "",
           1e3 * t[len(t) // 2], 1e3 * t[0]))

if __name__ == "__main__":
    main()
