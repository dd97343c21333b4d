#!/usr/bin/env bash
# The lent 16-core machine, third call: is the residual chain's one-thread loss in AVX-512
# registers (run2.sh: 0.86x) the groups' registers split across cache lines? `zmm` (the
# committed kernel), `aligned` (the same with each row's head before the output's first
# 64-byte line through the padded tail: ../2026-11-27h-intel-f32-zmm-chains/rejected-line-aligned.diff)
# and `ymm` (BCAST_STRATEGY=arithmetic=avx2) alternating, 1 thread, 10 rounds.
#   OUT=folder benches/results/2026-11-27i-16core-zmm/run3.sh DIR_WITH_bcast_AND_bcast-aligned
set -u
DIR=${1:?folder}
uptime > "$OUT/uptime3.txt"
cases=""; for c in residual_f32 bn_f32 ln_f32; do cases="$cases --case $c"; done
for r in 1 2 3 4 5 6 7 8 9 10; do
  for w in ymm zmm aligned; do
    bin="$DIR/bcast"; s=
    [ $w = ymm ] && s=arithmetic=avx2
    [ $w = aligned ] && bin="$DIR/bcast-aligned"
    BCAST_STRATEGY=$s timeout 30 "$bin" bench --group fused --threads 1 --budget-ms 200 --json $cases \
      | grep '"case"' | sed "s/^{/{\"which\":\"$w\",\"round\":$r,/" >> "$OUT/aligned_ab_1t.jsonl"
  done
done
uptime >> "$OUT/uptime3.txt"
