#!/usr/bin/env python3
"""Markdown tables from `benches/many_core_sweep.sh` output: every cell is the median over
the rounds found in the folder (bcast-*.jsonl, torch-*.jsonl, numpy-*.jsonl).

    python3 benches/many_core_table.py SWEEP_DIR

Three tables, one column per thread count:
- broadcast: bcast GB/s (ratio_fill) beside torch's `copy_(x.expand)` GB/s, and bcast ÷ torch;
- reduce: bcast GB/s (ratio_read);
- element-wise: bcast GB/s (ratio_bound) beside torch's op with `out=`, bcast ÷ torch, and
  numpy's single-threaded ufunc for scale.
"""

import glob
import json
import os
import statistics
import sys


def load(pattern):
    rows = {}
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    if "case" in d:  # the first line names the machine
                        rows.setdefault((d["case"], d.get("threads", 1)), []).append(d)
    return rows


def med(ds, key):
    vals = [d[key] for d in ds if key in d]
    return statistics.median(vals) if vals else None


def main(folder):
    bcast = load(os.path.join(folder, "bcast-*.jsonl"))
    torch = load(os.path.join(folder, "torch-*.jsonl"))
    numpy = load(os.path.join(folder, "numpy-*.jsonl"))
    threads = sorted({t for _, t in bcast})
    cases = list(dict.fromkeys(c for c, _ in bcast))
    rounds = max(len(v) for v in bcast.values())
    print(f"Medians of {rounds} rounds; threads {', '.join(map(str, threads))}.\n")

    head = " | ".join(f"{t} thr" for t in threads)
    rule = "---:|" * len(threads)

    print("Broadcast: bcast GB/s (ratio_fill) / torch GB/s, bcast ÷ torch\n")
    print(f"| case | {head} |\n|---|{rule}")
    for c in cases:
        if c.startswith("reduce_") or "ratio_fill" not in bcast[(c, threads[0])][0]:
            continue
        cells = []
        for t in threads:
            b = bcast.get((c, t))
            k, r = med(b, "kernel_gbps"), med(b, "ratio_fill")
            tk = med(torch.get((c, t), []), "torch_copy_gbps")
            cell = f"{k:.1f} ({r:.2f})"
            if tk:
                cell += f" / {tk:.1f}, {k / tk:.2f}x"
            cells.append(cell)
        print(f"| {c} | " + " | ".join(cells) + " |")

    print("\nReduce: bcast GB/s of input read (ratio_read)\n")
    print(f"| case | {head} |\n|---|{rule}")
    for c in cases:
        if not c.startswith("reduce_"):
            continue
        cells = [f"{med(bcast[(c, t)], 'reduce_gbps'):.1f} ({med(bcast[(c, t)], 'ratio_read'):.2f})"
                 for t in threads]
        print(f"| {c} | " + " | ".join(cells) + " |")

    print("\nElement-wise: bcast GB/s (ratio_bound) / torch GB/s, bcast ÷ torch; "
          "numpy = one-thread ufunc `out=`\n")
    print(f"| case | {head} | numpy |\n|---|{rule}---:|")
    for c in cases:
        if "ratio_bound" not in bcast[(c, threads[0])][0]:
            continue
        cells = []
        for t in threads:
            b = bcast[(c, t)]
            k, r = med(b, "kernel_gbps"), med(b, "ratio_bound")
            tk = med(torch.get((c, t), []), "torch_gbps")
            if c.startswith("tiny"):
                ns = med(b, "ns_per_call")
                tns = med(torch.get((c, t), []), "ns_per_call")
                cell = f"{ns:.0f} ns" + (f" / {tns:.0f} ns" if tns else "")
            else:
                cell = f"{k:.1f} ({r:.2f})" + (f" / {tk:.1f}, {k / tk:.2f}x" if tk else "")
            cells.append(cell)
        n = med(numpy.get((c, 1), []), "numpy_ufunc_gbps")
        print(f"| {c} | " + " | ".join(cells) + f" | {n:.2f} |" if n else " | - |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
