#!/usr/bin/env bash
# The lent 16-core machine, second call: the single ops at 16 threads under four strategy
# settings (one binary, BCAST_STRATEGY), with PyTorch's same cases in the same rounds, to
# find why the whole ops stop short of their copy bound at 16 threads where PyTorch does not.
#   OUT=folder benches/results/2026-11-27e-16core/run2.sh path/to/bcast
set -u
BIN=${1:?bcast binary}
here=$(cd "$(dirname "$0")/../../.." && pwd)
uptime > "$OUT/uptime2.txt"
cases=""; for c in row_mul_f32 same_add_f32 mid_mul_f16 scalar_max_f32 outer_add_f32 pdpd_mul_f32; do cases="$cases --case $c"; done
for r in 1 2 3; do
  for s in default eltwise=avx2 prefetch=0 eltwise=avx2,prefetch=0 arithmetic=avx2; do
    if [[ $s == default ]]; then unset BCAST_STRATEGY; else export BCAST_STRATEGY=$s; fi
    timeout 60 "$BIN" bench --group eltwise --threads 4,16 --budget-ms 200 --json $cases \
      | grep '"case"' | sed "s/^{/{\"who\":\"bcast\",\"setting\":\"$s\",\"round\":$r,/" >> "$OUT/settings.jsonl"
  done
  unset BCAST_STRATEGY
  timeout 60 python3 "$here/benches/torch_baseline.py" --threads 4,16 --budget 0.2 $cases \
    | sed "s/^{/{\"who\":\"torch\",\"round\":$r,/" >> "$OUT/settings.jsonl"
done
uptime >> "$OUT/uptime2.txt"
