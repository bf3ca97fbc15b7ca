#!/usr/bin/python3
"""PyTorch's batch-1 latency of a model of make_model.py, in its best CPU configuration: frozen
TorchScript with optimize_for_inference (oneDNN), torch.set_num_threads(T). The model and input
come from the same seed as make_model.py's, so the weights are the ones exported to ONNX.

  /usr/bin/python3 tests/models/torch_latency.py NAME --threads T [--runs N] [--profile]

Prints `torch NAME threads=T median_ms=... min_ms=...`; with --profile, the operators' share
of one inference (torch.profiler) first.
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_model  # noqa: E402


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
    with torch.no_grad():
        frozen = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(model, x)))
        for _ in range(5):
            frozen(x)
        if a.profile:
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                frozen(x)
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            frozen(x)
            times.append(time.perf_counter() - t0)
    times.sort()
    print("torch %s threads=%d median_ms=%.3f min_ms=%.3f" %
          (a.name, a.threads, 1e3 * times[len(times) // 2], 1e3 * times[0]))


if __name__ == "__main__":
    main()
