import json, statistics as st, sys
rows=[json.loads(l) for f in sys.argv[1:] for l in open(f) if '"case"' in l]
agg={}
for d in rows:
    agg.setdefault((d['case'],d['threads']),{}).setdefault(d['which'],[]).append((d['fused_gbps'],d.get('ratio_bound'),d['unfused_gbps'],d['fused_ns_per_call']))
print(f"{'case':20} thr  base_gbps new_gbps  new/base  base_bound new_bound new/opbyop")
for k,v in agg.items():
    b=st.median([x[0] for x in v['base']]); n=st.median([x[0] for x in v['new']])
    rb=st.median([x[1] for x in v['base']]); rn=st.median([x[1] for x in v['new']])
    ub=st.median([x[2] for x in v['new']])
    print(f"{k[0]:20} {k[1]:3} {b:9.2f} {n:9.2f} {n/b:8.2f} {rb:9.2f} {rn:9.2f} {n/ub:8.2f}  ns {st.median([x[3] for x in v['new']]):.0f}")
