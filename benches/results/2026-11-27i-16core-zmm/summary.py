#!/usr/bin/env python3
"""The ymm/zmm A/B of run.sh part 1: per case and thread count, the median GB/s of each
path, the median of the per-round ratios zmm/ymm, and each path's median ratio to the
bound.   python3 summary.py zmm_ab.jsonl"""
import collections
import json
import statistics as st
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]
d = collections.defaultdict(lambda: collections.defaultdict(dict))
for r in rows:
    d[(r["case"], r["threads"])][r["round"]][r["which"]] = (r["fused_gbps"], r["ratio_bound"])
print("| case | threads | ymm GB/s | zmm GB/s | zmm/ymm | ÷ bound ymm -> zmm |")
print("|---|---:|---:|---:|---:|---|")
for (case, threads), rounds in sorted(d.items()):
    both = [v for v in rounds.values() if "ymm" in v and "zmm" in v]
    med = lambda w, i: st.median(v[w][i] for v in both)
    ratio = st.median(v["zmm"][0] / v["ymm"][0] for v in both)
    print(f"| {case} | {threads} | {med('ymm', 0):.1f} | {med('zmm', 0):.1f} | {ratio:.2f} | "
          f"{med('ymm', 1):.2f} -> {med('zmm', 1):.2f} |")
