#!/usr/bin/env python3
"""Medians of an interleaved A/B of two bcast binaries (JSON lines of `bcast bench --json`,
each tagged `"which": "base"|"new"` and `"round"`): per case and thread count, each side's
GB/s and ratio to its traffic bound, and new over base.

    python3 summary.py FILE.jsonl

The 2026-11-27b folders' raw files were made by a shell loop (this folder's README), not by
benches/ab.py, which is the project's A/B driver for new runs and prints its own summary.
"""
import json,sys,statistics as st,collections
rows=[json.loads(l) for l in open(sys.argv[1]) if '"case"' in l]
d=collections.defaultdict(list)
for r in rows: d[(r['case'],r['threads'],r['which'])].append(r)
for (c,t) in sorted({(k[0],k[1]) for k in d}):
    b=d[(c,t,'base')]; n=d[(c,t,'new')]
    m=lambda xs,k: st.median(x[k] for x in xs)
    print(f"{c:32s} t{t} base {m(b,'kernel_gbps'):6.2f} GB/s (traffic {m(b,'ratio_traffic'):.2f})  new {m(n,'kernel_gbps'):6.2f} GB/s (traffic {m(n,'ratio_traffic'):.2f})  new/base {st.median(x['kernel_gbps'] for x in n)/st.median(x['kernel_gbps'] for x in b):.2f}")
