#!/bin/bash
# usage: abprobe.sh rounds bin1 bin2 ...  -> per binary: min, median of per-run mins, median of per-round ratio (bin1 time / bin time: above 1 = faster than bin1)
rounds=$1; shift
for r in $(seq $rounds); do for b in "$@"; do echo "$r $b $(N=50000 BATCHES=9 /work/bins/tinyprobe-$b)"; done; done > /tmp/abprobe.out
python3 - "$@" <<'PY'
import sys,statistics as st
rows=[l.split() for l in open('/tmp/abprobe.out')]
base=sys.argv[1]
t={(r[0],r[1]):float(r[3]) for r in rows}
rounds=sorted({r[0] for r in rows})
for b in sys.argv[1:]:
    mins=[t[(r,b)] for r in rounds]
    ratios=[t[(r,base)]/t[(r,b)] for r in rounds]
    print(f"{b:12s} min {min(mins):7.1f} ns  median {st.median(mins):7.1f} ns  rate vs {base}: median {st.median(ratios):.2f} (q1 {st.quantiles(ratios,n=4)[0]:.2f}, q3 {st.quantiles(ratios,n=4)[2]:.2f})")
PY
