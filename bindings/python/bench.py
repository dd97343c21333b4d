#!/usr/bin/env python3
"""bcast's Python API beside numpy on the `bcast bench` cases; prints a Markdown table.

For each case, interleaved round by round, medians of the rounds:
- bcast into: `bcast.broadcast(x, target, mode, ..., out=out)` into a reused, already
  written `out`; numpy copyto: `np.copyto(out, np.broadcast_to(xa, shape))` likewise;
- bcast alloc: `bcast.broadcast(x, target, mode, ...)`; numpy copy: `np.broadcast_to(xa,
  shape).copy()`: both allocate their output each call.

GB/s = 10^9 bytes of output per second. `xa` is the data reshaped to the output's rank, which
is what the non-numpy modes mean (as in benches/numpy_baseline.py, whose cases these are, plus
`strings`). bcast runs on rayon's default pool (one thread per core); numpy on one thread.

Run: python3 bindings/python/bench.py [--case NAME]... [--budget-ms MS]
"""

import argparse
import os
import statistics
import time

import numpy as np

import bcast

# name, data shape, bcast target, bcast mode and arguments, data reshaped to the output
# rank, output shape, dtype. Mirrors `bcast_cli::bench::CASES` (crates/bcast-cli/src/bench/cases.rs).
CASES = [
    ("channel_bias_f32", [64, 1, 1], [1, 64, 512, 512], ("numpy", {}), [1, 64, 1, 1], [1, 64, 512, 512], "f4"),
    ("row_f32", [1000], [8192, 1000], ("numpy", {}), [1, 1000], [8192, 1000], "f4"),
    ("column_f32", [8192, 1], [8192, 2048], ("numpy", {}), [8192, 1], [8192, 2048], "f4"),
    ("scalar_f32", [], [4096, 4096], ("numpy", {}), [1, 1], [4096, 4096], "f4"),
    ("explicit_c_f32", [64], [1, 64, 512, 512], ("explicit", {"axes_mapping": [1]}), [1, 64, 1, 1], [1, 64, 512, 512], "f4"),
    ("bidir_f32", [64, 1, 1], [4, 1, 256, 256], ("bidirectional", {}), [1, 64, 1, 1], [4, 64, 256, 256], "f4"),
    ("pixel_u8", [1, 1, 3], [1, 2048, 2048, 3], ("numpy", {}), [1, 1, 1, 3], [1, 2048, 2048, 3], "u1"),
    ("mid_f16", [1, 512, 1], [64, 512, 512], ("numpy", {}), [1, 512, 1], [64, 512, 512], "f2"),
    ("pdpd_f32", [512, 1], [8, 512, 64, 64], ("pdpd", {"axis": 1}), [1, 512, 1, 1], [8, 512, 64, 64], "f4"),
    ("axes_f64", [2048], [2048, 2048], ("axes", {"broadcast_axes": [1]}), [2048, 1], [2048, 2048], "f8"),
    ("tiny_f32", [3, 1], [3, 4], ("numpy", {}), [3, 1], [3, 4], "f4"),
    ("strings", [1000], [1000, 1000], ("numpy", {}), [1, 1000], [1000, 1000], "U8"),
]


def data(shape, dtype):
    n = int(np.prod(shape)) if shape else 1
    if np.dtype(dtype).kind == "U":
        return np.array([f"s{i % 251}" for i in range(n)]).reshape(shape)
    # Non-zero values that differ along every axis, as in `Case::input`.
    return ((np.arange(n) % 251 + 1) * 0.5).astype(dtype).reshape(shape)


def per_call(fn, batch):
    start = time.perf_counter()
    for _ in range(batch):
        fn()
    return (time.perf_counter() - start) / batch


def measure(case, budget):
    name, data_shape, target, (mode, kw), aligned, shape, dtype = case
    x = data(data_shape, dtype)
    xa = x.reshape(aligned)
    out = np.empty(shape, dtype=x.dtype)
    ref = np.broadcast_to(xa, shape)
    got = bcast.broadcast(x, target, mode, **kw)
    assert got.shape == ref.shape and np.array_equal(got, ref), name
    fns = {
        "bcast_into": lambda: bcast.broadcast(x, target, mode, out=out, **kw),
        "numpy_into": lambda: np.copyto(out, np.broadcast_to(xa, shape)),
        "bcast_alloc": lambda: bcast.broadcast(x, target, mode, **kw),
        "numpy_alloc": lambda: np.broadcast_to(xa, shape).copy(),
    }
    for fn in fns.values():
        fn()
    one = max(per_call(fns["numpy_into"], 1), 1e-9)
    batch = max(1, int(1e-3 / one))
    rounds = max(7, min(101, int(budget / (4 * batch * one))))
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            times[k].append(per_call(fn, batch))
    med = {k: statistics.median(v) for k, v in times.items()}
    return name, out.nbytes, med


def fmt_bytes(n):
    for unit, size in (("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.0f} {unit}"
    return f"{n} B"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--budget-ms", type=float, default=1500)
    args = parser.parse_args()
    known = {c[0] for c in CASES}
    for name in args.case:
        if name not in known:
            parser.error(f"unknown case {name!r} (known: {', '.join(sorted(known))})")
    load_before = os.getloadavg()
    rows = []
    for case in CASES:
        if args.case and case[0] not in args.case:
            continue
        rows.append(measure(case, args.budget_ms / 1000))
    load_after = os.getloadavg()
    print(
        f"bcast {bcast.__version__}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
        f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after; "
        f"strings count 4 bytes per character of the <U8 output"
    )
    print()
    print(
        "| case | output | bcast into GB/s | numpy copyto GB/s | into ÷ numpy "
        "| bcast alloc GB/s | numpy copy() GB/s | alloc ÷ numpy | bcast into µs | numpy copyto µs |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, nbytes, med in rows:
        gbps = {k: nbytes / v / 1e9 for k, v in med.items()}
        print(
            f"| {name} | {fmt_bytes(nbytes)} | {gbps['bcast_into']:.2f} | {gbps['numpy_into']:.2f} "
            f"| **{med['numpy_into'] / med['bcast_into']:.2f}** | {gbps['bcast_alloc']:.2f} "
            f"| {gbps['numpy_alloc']:.2f} | **{med['numpy_alloc'] / med['bcast_alloc']:.2f}** "
            f"| {med['bcast_into'] * 1e6:.1f} | {med['numpy_into'] * 1e6:.1f} |"
        )


if __name__ == "__main__":
    main()
