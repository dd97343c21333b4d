#!/usr/bin/env python3
"""PyTorch on the shapes of `bcast bench`: `out.copy_(x.expand(shape))` into a reused `out`
and `out.fill_(1)` of the same buffer (torch's own write bound), at the sizes and thread
counts of `benches/scaling.sh`, one JSON line per case x size x threads. The element-wise
cases of `bcast bench` (group `eltwise`, the same names) run torch's op with `out=` (Select:
`torch.where(cond, then, else, out=)`; PDPD: B reshaped so numpy's rule places it where
PDPD does), beside torch's copy of an output-sized buffer (`torch_copy_gbps`):

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


# (name, torch op, a shape, b shape as placed for numpy's rule, dtype); op None: Select
# with cond a (bool), then b, else a scalar. Sizes are the bench's own (--mib is ignored).
ELT_CASES = [
    ("bias_add_f32", "add", [1, 64, 512, 512], [64, 1, 1], "float32"),
    ("row_mul_f32", "mul", [8192, 2048], [2048], "float32"),
    ("column_sub_f32", "sub", [8192, 2048], [8192, 1], "float32"),
    ("outer_add_f32", "add", [4096, 1], [1, 4096], "float32"),
    ("same_add_f32", "add", [4096, 4096], [4096, 4096], "float32"),
    ("pdpd_mul_f32", "mul", [8, 512, 64, 64], [512, 1, 1], "float32"),
    ("pixel_add_u8", "add", [1, 2048, 2048, 3], [3], "uint8"),
    ("mid_mul_f16", "mul", [64, 512, 512], [512, 1], "float16"),
    ("row_gt_f32", "gt", [4096, 4096], [4096], "float32"),
    ("scalar_max_f32", "maximum", [4096, 4096], [], "float32"),
    ("tiny_add_f32", "add", [3, 1], [4], "float32"),
    ("select_f32", None, [4096, 4096], [4096, 4096], "float32"),
]


def eltwise(torch, args, threads):
    """One JSON line per element-wise case and thread count."""
    def operand(shape, dt, salt):
        n = 1
        for d in shape:
            n *= d
        v = (torch.arange(max(n, 1)) * 7 + salt) % 251 + 1
        if dt == torch.bool:
            return (v % 2 == 0).reshape(shape)
        if dt == torch.uint8:
            return v.to(dt).reshape(shape)
        return (v * 0.5).to(dt).reshape(shape)

    for name, op, a_shape, b_shape, dtype in ELT_CASES:
        if args.case and name not in args.case:
            continue
        dt = getattr(torch, dtype)
        if op is None:
            cond = operand(a_shape, torch.bool, 0)
            then = operand(b_shape, dt, 1)
            other = operand([], dt, 2)
            out = torch.empty(torch.broadcast_shapes(cond.shape, then.shape), dtype=dt)

            def kernel():
                torch.where(cond, then, other, out=out)
        else:
            a = operand(a_shape, dt, 0)
            b = operand(b_shape, dt, 3)
            out_dt = torch.bool if op == "gt" else dt
            out = torch.empty(torch.broadcast_shapes(a.shape, b.shape), dtype=out_dt)
            f = getattr(torch, op)

            def kernel():
                f(a, b, out=out)
        src = torch.empty_like(out)
        src.fill_(1)
        nbytes = out.numel() * out.element_size()
        for t in threads:
            torch.set_num_threads(t)
            batch, rounds = timed(kernel, args.budget)
            k, c = [], []
            for _ in range(rounds):
                s = time.perf_counter()
                for _ in range(batch):
                    kernel()
                k.append((time.perf_counter() - s) / batch)
                s = time.perf_counter()
                for _ in range(batch):
                    out.copy_(src)
                c.append((time.perf_counter() - s) / batch)
            kt, ct = statistics.median(k), statistics.median(c)
            print(json.dumps({
                "case": name, "bytes": nbytes, "threads": t,
                "torch_gbps": nbytes / kt / 1e9, "torch_copy_gbps": nbytes / ct / 1e9,
                "ns_per_call": kt * 1e9, "torch": torch.__version__,
            }), flush=True)
        del out, src


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
    eltwise(torch, args, threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
