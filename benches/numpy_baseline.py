#!/usr/bin/env python3
"""numpy's rate on the `bcast bench` cases, measured the way `bcast bench` measures the kernel.

For each case: `np.copyto(out, np.broadcast_to(x, shape))` into a reused, already-written
`out` (numpy's best materialising path, single-threaded), and `np.broadcast_to(x, shape).copy()`
(allocating). Median of repeated runs, GB/s = 10^9 bytes of output per second. One JSON object
per case per line, so the numbers can sit next to `bcast bench --json` output.

Run: python3 benches/numpy_baseline.py [--case NAME]... [--budget-ms MS]

The eltwise group (`bcast_cli::bench_eltwise::ELT_CASES`) runs the numpy ufunc of each case
with `out=` into a reused output (`np.add(a, b, out=out)`, `np.where` for Select via
`np.copyto(out, then, where=cond)` after filling `else`), reported as `numpy_ufunc_gbps`.

The case table mirrors `bcast_cli::bench::CASES` (crates/bcast-cli/src/bench/cases.rs). Non-numpy modes are expressed as
the equivalent numpy broadcast of the data reshaped to the output rank (size 1 on every
broadcast axis), which is what the modes mean. `strings` is skipped: numpy has no
variable-length string type that `copyto` materialises comparably.
"""

import argparse
import json
import time

import numpy as np

# name, data shape, the data reshaped to the output rank, output shape, dtype
CASES = [
    ("channel_bias_f32", [64, 1, 1], [1, 64, 1, 1], [1, 64, 512, 512], np.float32),
    ("row_f32", [1000], [1, 1000], [8192, 1000], np.float32),
    ("column_f32", [8192, 1], [8192, 1], [8192, 2048], np.float32),
    ("scalar_f32", [], [1, 1], [4096, 4096], np.float32),
    ("explicit_c_f32", [64], [1, 64, 1, 1], [1, 64, 512, 512], np.float32),
    ("bidir_f32", [64, 1, 1], [1, 64, 1, 1], [4, 64, 256, 256], np.float32),
    ("pixel_u8", [1, 1, 3], [1, 1, 1, 3], [1, 2048, 2048, 3], np.uint8),
    ("mid_f16", [1, 512, 1], [1, 512, 1], [64, 512, 512], np.float16),
    ("pdpd_f32", [512, 1], [1, 512, 1, 1], [8, 512, 64, 64], np.float32),
    ("axes_f64", [2048], [2048, 1], [2048, 2048], np.float64),
    ("tiny_f32", [3, 1], [3, 1], [3, 4], np.float32),
]


def seconds_per_call(fn, batch):
    start = time.perf_counter()
    for _ in range(batch):
        fn()
    return (time.perf_counter() - start) / batch


def measure(name, data_shape, aligned, shape, dtype, budget):
    n = int(np.prod(data_shape)) if data_shape else 1
    # Non-zero values that differ along every axis, as in `Case::input`.
    x = ((np.arange(n) % 251 + 1) * 0.5).astype(dtype).reshape(data_shape)
    xa = x.reshape(aligned)
    out = np.empty(shape, dtype=dtype)
    np.copyto(out, np.broadcast_to(xa, shape))

    def into():
        np.copyto(out, np.broadcast_to(xa, shape))

    def alloc():
        return np.broadcast_to(xa, shape).copy()

    one = seconds_per_call(into, 1)
    batch = max(1, int(1e-3 / max(one, 1e-9)))
    rounds = max(7, min(201, int(budget / (2 * batch * max(one, 1e-9)))))
    k, a = [], []
    for _ in range(rounds):
        k.append(seconds_per_call(into, batch))
        start = time.perf_counter()
        kept = [alloc() for _ in range(batch)]
        a.append((time.perf_counter() - start) / batch)
        del kept
    k.sort()
    a.sort()
    nbytes = out.nbytes
    return {
        "case": name,
        "bytes": nbytes,
        "threads": 1,
        "numpy_copyto_gbps": nbytes / k[len(k) // 2] / 1e9,
        "numpy_copy_alloc_gbps": nbytes / a[len(a) // 2] / 1e9,
        "ns_per_call": k[len(k) // 2] * 1e9,
        "numpy": np.__version__,
    }


# name, ufunc, a shape, b shape (PDPD: already placed at the output rank), dtype
ELT_CASES = [
    ("bias_add_f32", np.add, [1, 64, 512, 512], [64, 1, 1], np.float32),
    ("row_mul_f32", np.multiply, [8192, 2048], [2048], np.float32),
    ("column_sub_f32", np.subtract, [8192, 2048], [8192, 1], np.float32),
    ("outer_add_f32", np.add, [4096, 1], [1, 4096], np.float32),
    ("same_add_f32", np.add, [4096, 4096], [4096, 4096], np.float32),
    ("pdpd_mul_f32", np.multiply, [8, 512, 64, 64], [512, 1, 1], np.float32),
    ("pixel_add_u8", np.add, [1, 2048, 2048, 3], [3], np.uint8),
    ("mid_mul_f16", np.multiply, [64, 512, 512], [512, 1], np.float16),
    ("row_gt_f32", np.greater, [4096, 4096], [4096], np.float32),
    ("scalar_max_f32", np.maximum, [4096, 4096], [], np.float32),
    ("tiny_add_f32", np.add, [3, 1], [4], np.float32),
    ("select_f32", None, [4096, 4096], [4096, 4096], np.float32),
]


def operand(shape, dtype, salt):
    n = int(np.prod(shape)) if shape else 1
    v = ((np.arange(n) * 7 + salt) % 251 + 1)
    if dtype == np.bool_:
        return (v % 2 == 0).reshape(shape)
    if dtype == np.uint8:
        return v.astype(np.uint8).reshape(shape)
    return (v * 0.5).astype(dtype).reshape(shape)


def measure_elt(name, ufunc, a_shape, b_shape, dtype, budget):
    if ufunc is None:
        cond = operand(a_shape, np.bool_, 0)
        then = operand(b_shape, dtype, 1)
        other = operand([], dtype, 2)
        out = np.empty(np.broadcast_shapes(cond.shape, then.shape, other.shape), dtype=dtype)

        def into():
            out[...] = other
            np.copyto(out, then, where=cond)
    else:
        a = operand(a_shape, dtype, 0)
        b = operand(b_shape, dtype, 3)
        out_dtype = np.bool_ if ufunc is np.greater else dtype
        out = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype=out_dtype)

        def into():
            ufunc(a, b, out=out)
    into()
    one = seconds_per_call(into, 1)
    batch = max(1, int(1e-3 / max(one, 1e-9)))
    rounds = max(7, min(201, int(budget / (batch * max(one, 1e-9)))))
    k = sorted(seconds_per_call(into, batch) for _ in range(rounds))
    return {
        "case": name,
        "bytes": out.nbytes,
        "threads": 1,
        "numpy_ufunc_gbps": out.nbytes / k[len(k) // 2] / 1e9,
        "ns_per_call": k[len(k) // 2] * 1e9,
        "numpy": np.__version__,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--budget-ms", type=float, default=1500)
    args = parser.parse_args()
    known = {c[0] for c in CASES} | {c[0] for c in ELT_CASES}
    for name in args.case:
        if name not in known:
            parser.error(f"unknown case {name!r} (known: {', '.join(sorted(known))})")
    for case in CASES:
        if args.case and case[0] not in args.case:
            continue
        print(json.dumps(measure(*case, budget=args.budget_ms / 1000)), flush=True)
    for case in ELT_CASES:
        if args.case and case[0] not in args.case:
            continue
        print(json.dumps(measure_elt(*case, budget=args.budget_ms / 1000)), flush=True)


if __name__ == "__main__":
    main()
