#!/usr/bin/env python3
"""PyTorch on the shapes of `bcast bench`: `out.copy_(x.expand(shape))` into a reused `out`
and `out.fill_(1)` of the same buffer (torch's own write bound), at the sizes and thread
counts of `benches/scaling.sh`, one JSON line per case x size x threads:

    python3 benches/torch_baseline.py [--mib 1,8,64,1024] [--threads 1,2,4,8,16] [--budget 0.4]

The shapes are scaled the way `bcast bench --mib` scales them (the largest broadcast axis).
Without torch (or numpy) it says so and exits 0, so scripts can call it anywhere.
"""

import argparse
import json
import os
import statistics
import sys
import time

# (name, data shape, target/output shape, dtype, axis scaled by --mib)
CASES = [
    ("channel_bias_f32", [64, 1, 1], [1, 64, 512, 512], "float32", 2),
    ("row_f32", [1000], [8192, 1000], "float32", 0),
    ("column_f32", [8192, 1], [8192, 2048], "float32", 1),
    ("scalar_f32", [], [4096, 4096], "float32", 0),
    ("explicit_c_f32", [1, 64, 1, 1], [1, 64, 512, 512], "float32", 2),
    ("bidir_f32", [64, 1, 1], [4, 64, 256, 256], "float32", 2),
    ("pixel_u8", [1, 1, 3], [1, 2048, 2048, 3], "uint8", 1),
    ("mid_f16", [1, 512, 1], [64, 512, 512], "float16", 2),
    ("pdpd_f32", [1, 512, 1, 1], [8, 512, 64, 64], "float32", 2),
    ("axes_f64", [2048], [2048, 2048], "float64", 0),
]


def scaled(target, axis, elem, mib):
    if mib is None:
        return list(target)
    n = elem
    for d in target:
        n *= d
    t = list(target)
    t[axis] = max(1, round(t[axis] * mib * 2**20 / n))
    return t


def timed(f, budget):
    f()
    start = time.perf_counter()
    f()
    one = max(time.perf_counter() - start, 1e-9)
    batch = max(1, int(1e-3 / one))
    rounds = max(7, min(201, int(budget / (2 * one * batch)))) | 1
    return batch, rounds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", default=None, help="comma list of output sizes in MiB")
    ap.add_argument("--threads", default=None, help="comma list of thread counts")
    ap.add_argument("--budget", type=float, default=0.4, help="seconds per case")
    ap.add_argument("--case", action="append", default=[])
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_baseline: torch is not installed here; nothing measured", file=sys.stderr)
        return 0
    sizes = [float(m) for m in args.mib.split(",")] if args.mib else [None]
    cores = os.cpu_count() or 1
    threads = [int(t) for t in args.threads.split(",")] if args.threads else sorted(
        {1, cores} | {2**k for k in range(1, 8) if 2**k < cores})
    for name, data, target, dtype, axis in CASES:
        if args.case and name not in args.case:
            continue
        dt = getattr(torch, dtype)
        elem = torch.tensor([], dtype=dt).element_size()
        for mib in sizes:
            shape = scaled(target, axis, elem, mib)
            numel = 1
            for d in data:
                numel *= d
            x = (torch.arange(max(numel, 1)) % 251 + 1).to(dt).reshape(data)
            out = torch.empty(shape, dtype=dt)
            out.copy_(x.expand(shape))
            nbytes = out.numel() * elem
            for t in threads:
                torch.set_num_threads(t)
                batch, rounds = timed(lambda: out.copy_(x.expand(shape)), args.budget)
                k, f = [], []
                for _ in range(rounds):
                    s = time.perf_counter()
                    for _ in range(batch):
                        out.copy_(x.expand(shape))
                    k.append((time.perf_counter() - s) / batch)
                    s = time.perf_counter()
                    for _ in range(batch):
                        out.fill_(1)
                    f.append((time.perf_counter() - s) / batch)
                kt, ft = statistics.median(k), statistics.median(f)
                print(json.dumps({
                    "case": name, "bytes": nbytes, "threads": t,
                    "torch_copy_gbps": nbytes / kt / 1e9, "torch_fill_gbps": nbytes / ft / 1e9,
                    "ratio_fill": ft / kt, "torch": torch.__version__,
                }), flush=True)
            del out
    return 0


if __name__ == "__main__":
    sys.exit(main())
