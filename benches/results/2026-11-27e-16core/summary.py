#!/usr/bin/env python3
"""Medians of this folder's raw lines (run.sh part 1 and 4, run2.sh): prints Markdown tables."""
import json
import os
import statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(name):
    with open(os.path.join(HERE, name)) as f:
        return [json.loads(line) for line in f if line.startswith("{") and '"case"' in line]


print("## Streaming windows at 1 GiB, 16 threads (window over none, medians of 2)\n")
print("| case | window GB/s | none GB/s | window / none |\n|---|---|---|---|")
by = {}
for x in rows("stream_1gib.jsonl"):
    by.setdefault((x["case"], x["stream"]), []).append(x["kernel_gbps"])
for case in sorted({c for c, _ in by}):
    w, n = st.median(by[(case, "window")]), st.median(by[(case, "none")])
    print(f"| {case} | {w:.1f} | {n:.1f} | {w / n:.2f} |")

print("\n## Fused group at 1 GiB, 16 threads (one run)\n")
print("| case | fused GB/s | op by op GB/s | bound GB/s | fused / bound |\n|---|---|---|---|---|")
for x in rows("fused_1gib.jsonl"):
    print(f"| {x['case']} | {x['fused_gbps']:.1f} | {x['unfused_gbps']:.1f} | "
          f"{x['bound_gbps']:.1f} | {x['ratio_bound']:.2f} |")

print("\n## Single ops under strategy settings beside PyTorch (run2.sh, medians of 3, GB/s of output)\n")
cols = ["default", "eltwise=avx2", "prefetch=0", "eltwise=avx2,prefetch=0", "arithmetic=avx2"]
by = {}
for x in rows("settings.jsonl"):
    cell = by.setdefault((x["case"], x["threads"]), {})
    if x["who"] == "torch":
        cell.setdefault("torch", []).append(x["torch_gbps"])
        cell.setdefault("torch copy", []).append(x["torch_copy_gbps"])
    else:
        cell.setdefault(x["setting"], []).append(x["kernel_gbps"])
        if x["setting"] == "default":
            cell.setdefault("bcast copy", []).append(x["copy_gbps"])
head = cols + ["bcast copy", "torch", "torch copy", "default / torch"]
print("| case | threads | " + " | ".join(head) + " |\n|" + "---|" * (len(head) + 2))
for key in sorted(by):
    cell = {k: st.median(v) for k, v in by[key].items()}
    vals = [f"{cell[c]:.1f}" for c in head[:-1]]
    print(f"| {key[0]} | {key[1]} | " + " | ".join(vals) + f" | {cell['default'] / cell['torch']:.2f} |")
