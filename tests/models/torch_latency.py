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
import sys
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


def print_layers(model, x, runs=10):
    """PyTorch's time per layer, for comparing with tunefarm's fused groups: the eager model
    (the frozen graph runs its convolutions as prim::mkldnn_convolution, which the profiler does
    not attribute per call) with hooks around every convolution, linear and attention module,
    median over `runs` inferences, in execution order."""
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

    handles = []
    for name, m in model.named_modules():
        if isinstance(m, kinds):
            handles.append(m.register_forward_pre_hook(pre(name)))
            handles.append(m.register_forward_hook(post(name)))
    for _ in range(runs):
        model(x)
    for h in handles:
        h.remove()
    print("PyTorch per layer (eager, hooks; median of %d):" % runs)
    for i, name in enumerate(order):
        t = sorted(times[name])
        print("  layer %-3d %-36s %9.3f ms" % (i, name, 1e3 * t[len(t) // 2]))


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
        if a.profile:
            for name, f in variants.items():
                with torch.profiler.profile(
                        activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                    f(x)
                print("PyTorch (%s):" % name)
                print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
        if a.profile:
            print_layers(model, x)
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
    others = " ".join("%s_median_ms=%.3f" % (k.replace(" ", "_"), 1e3 * t[len(t) // 2])
                      for k, t in times.items() if k != best)
    t = times[best]
    print("torch %s threads=%d variant=%s %smedian_ms=%.3f min_ms=%.3f" %
          (a.name, a.threads, best.replace(" ", "_"), others + " " if others else "",
           1e3 * t[len(t) // 2], 1e3 * t[0]))

if __name__ == "__main__":
    main()
