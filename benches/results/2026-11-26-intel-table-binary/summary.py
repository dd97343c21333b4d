"""Medians of interleaved A/B rounds (ab.sh's JSON lines): per case and thread count, the
new binary's time over the base binary's (below 1: the new one is faster). Takes the
eltwise group's lines (ns_per_call) and the fused group's (fused_/unfused_ns_per_call)."""
import json
import statistics as st
import sys

rows = [json.loads(l) for f in sys.argv[1:] for l in open(f) if '"case"' in l]
agg = {}
for d in rows:
    if "ns_per_call" in d:
        cols = {"op": d["ns_per_call"]}
    else:
        cols = {"fused": d["fused_ns_per_call"], "unfused": d["unfused_ns_per_call"]}
    for col, v in cols.items():
        key = (d["case"], d["threads"], d.get("isa", "default"), col)
        agg.setdefault(key, {}).setdefault(d["which"], []).append(v)
print(f"{'case':32} thr {'isa':22} {'what':8} {'base ns':>12} {'new ns':>12} new/base")
for (case, thr, isa, col), v in agg.items():
    if "base" in v and "new" in v:
        b, n = st.median(v["base"]), st.median(v["new"])
        print(f"{case:32} {thr:3} {isa[:22]:22} {col:8} {b:12.0f} {n:12.0f} {n / b:7.3f}")
