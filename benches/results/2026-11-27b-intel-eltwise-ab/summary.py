import json,sys,statistics as st,collections
rows=[json.loads(l) for l in open(sys.argv[1]) if '"case"' in l]
d=collections.defaultdict(list)
for r in rows: d[(r['case'],r['threads'],r['which'])].append(r)
for (c,t) in sorted({(k[0],k[1]) for k in d}):
    b=d[(c,t,'base')]; n=d[(c,t,'new')]
    m=lambda xs,k: st.median(x[k] for x in xs)
    print(f"{c:32s} t{t} base {m(b,'kernel_gbps'):6.2f} GB/s (traffic {m(b,'ratio_traffic'):.2f})  new {m(n,'kernel_gbps'):6.2f} GB/s (traffic {m(n,'ratio_traffic'):.2f})  new/base {st.median(x['kernel_gbps'] for x in n)/st.median(x['kernel_gbps'] for x in b):.2f}")
