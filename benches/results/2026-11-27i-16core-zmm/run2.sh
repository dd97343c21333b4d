#!/usr/bin/env bash
# The lent 16-core machine, second call: the one-thread A/B of run.sh part 1 again, with more
# rounds (run.sh's three left 0.88-1.04x at one thread unsettled): `ymm`
# (BCAST_STRATEGY=arithmetic=avx2) and `zmm` (the default) alternating, 10 rounds.
#   OUT=folder benches/results/2026-11-27i-16core-zmm/run2.sh path/to/bcast
set -u
BIN=${1:?bcast binary}
uptime > "$OUT/uptime2.txt"
cases=""; for c in bn_f32 ln_f32 bias_relu_f32 residual_f32; do cases="$cases --case $c"; done
for r in 1 2 3 4 5 6 7 8 9 10; do
  for w in ymm zmm; do
    if [ $w = ymm ]; then s=arithmetic=avx2; else s=; fi
    BCAST_STRATEGY=$s timeout 30 "$BIN" bench --group fused --threads 1 --budget-ms 200 --json $cases \
      | grep '"case"' | sed "s/^{/{\"which\":\"$w\",\"round\":$r,/" >> "$OUT/zmm_ab_1t.jsonl"
  done
done
uptime >> "$OUT/uptime2.txt"
