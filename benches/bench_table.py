#!/usr/bin/env python3
"""Turns several `bcast bench --json` runs (and optionally `numpy_baseline.py` runs) into the
README's markdown tables: each cell is the median over the runs.

Run: python3 benches/bench_table.py run1.json run2.json run3.json [--numpy np1.json np2.json ...]
"""

import json
import statistics
import sys


def load(paths):
    rows = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                d = json.loads(line)
                if "case" in d:  # the first line names the machine
                    rows.setdefault(d["case"], []).append(d)
    return rows


def size(b):
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return f"{b >> 20} MiB"
    if b >= 1 << 20:
        return f"{b / (1 << 20):.0f} MiB"
    return f"{b} B"


def main(argv):
    if "--numpy" in argv:
        i = argv.index("--numpy")
        bench_paths, numpy_paths = argv[:i], argv[i + 1 :]
    else:
        bench_paths, numpy_paths = argv, []
    bench = load(bench_paths)
    med = lambda ds, k: statistics.median(d[k] for d in ds)
    print("| case | output | kernel GB/s | fill GB/s | memcpy GB/s | alloc GB/s | fresh GB/s "
          "| ratio_fill | ratio_fill range | alloc ÷ fill | ns/call |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case, ds in bench.items():
        if "ratio_fill" not in ds[0]:
            continue
        rs = [d["ratio_fill"] for d in ds]
        big = ds[0]["bytes"] >= 1 << 20
        ratio = f"**{med(ds, 'ratio_fill'):.2f}**" if big else "-"
        rng = f"{min(rs):.2f}-{max(rs):.2f}" if big else "-"
        af = statistics.median(d["alloc_gbps"] / d["fill_gbps"] for d in ds)
        print(f"| {case} | {size(ds[0]['bytes'])} | {med(ds, 'kernel_gbps'):.2f} "
              f"| {med(ds, 'fill_gbps'):.2f} | {med(ds, 'memcpy_gbps'):.2f} "
              f"| {med(ds, 'alloc_gbps'):.2f} | {med(ds, 'fresh_gbps'):.2f} | {ratio} | {rng} "
              f"| {af:.2f} | {med(ds, 'ns_per_call'):.0f} |")
    numpy = load(numpy_paths) if numpy_paths else {}
    elt = [(c, ds) for c, ds in bench.items() if "ratio_bound" in ds[0]]
    if elt:
        print()
        print("| case | output | kernel GB/s | copy GB/s | fill GB/s | ratio_bound | range "
              "| ratio_traffic | numpy ufunc GB/s | × numpy | ns/call |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for case, ds in elt:
            rs = [d["ratio_bound"] for d in ds]
            ns = numpy.get(case)
            if ns and "numpy_ufunc_gbps" in ns[0]:
                n = med(ns, "numpy_ufunc_gbps")
                vs = f"{n:.2f} | {med(ds, 'kernel_gbps') / n:.1f}x"
            else:
                vs = "- | -"
            print(f"| {case} | {size(ds[0]['bytes'])} | {med(ds, 'kernel_gbps'):.2f} "
                  f"| {med(ds, 'copy_gbps'):.2f} | {med(ds, 'fill_gbps'):.2f} "
                  f"| **{med(ds, 'ratio_bound'):.2f}** | {min(rs):.2f}-{max(rs):.2f} "
                  f"| {med(ds, 'ratio_traffic'):.2f} | {vs} | {med(ds, 'ns_per_call'):.0f} |")
    if numpy_paths:
        print()
        print("| case | numpy copyto GB/s | bcast ÷ numpy | fill bound ÷ numpy "
              "| numpy alloc GB/s | bcast alloc ÷ numpy alloc |")
        print("|---|---:|---:|---:|---:|---:|")
        for case, ns in numpy.items():
            ds = bench.get(case)
            if not ds or "numpy_copyto_gbps" not in ns[0]:
                continue
            n = med(ns, "numpy_copyto_gbps")
            na = med(ns, "numpy_copy_alloc_gbps")
            if ds[0]["bytes"] < 1 << 20:
                print(f"| {case} | {med(ns, 'ns_per_call'):.0f} ns per call "
                      f"| {med(ns, 'ns_per_call') / med(ds, 'ns_per_call'):.0f}x fewer ns | - | - | - |")
                continue
            print(f"| {case} | {n:.2f} | {med(ds, 'kernel_gbps') / n:.2f} "
                  f"| {med(ds, 'fill_gbps') / n:.2f} | {na:.2f} "
                  f"| {med(ds, 'alloc_gbps') / na:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
