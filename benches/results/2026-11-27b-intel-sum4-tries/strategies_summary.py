import json,sys,statistics as st,collections
rows=[json.loads(l) for l in open(sys.argv[1]) if '"case"' in l]
d=collections.defaultdict(list)
for r in rows: d[(r['case'],r['threads'],r['which'])].append(r)
for k in sorted(d):
    xs=d[k]
    print(f"{k[0]:24s} t{k[1]} {k[2]:28s} {st.median(x['kernel_gbps'] for x in xs):6.2f} GB/s traffic {st.median(x['ratio_traffic'] for x in xs):.2f} copy {st.median(x['copy_gbps'] for x in xs):.2f}")
