#!/usr/bin/env bash
# 16-core A/B, order alternating per round (new first in odd rounds): eltwise group, 1 thread,
# then fused at 1 thread; 4 rounds.
set -u
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)" > "$OUT/cpu.txt"
uptime > "$OUT/uptime.txt"
for r in 1 2 3 4; do
  order="new base"; [ $((r % 2)) = 0 ] && order="base new"
  for g in eltwise fused; do
    for w in $order; do
      timeout 100 ./bcast-$w bench --group $g --threads 1 --budget-ms 200 --json 2>/dev/null | sed "s/^{/{\"which\":\"$w\",\"round\":$r,\"isa\":\"default\",/" >> "$OUT/ab.jsonl"
    done
  done
done
uptime >> "$OUT/uptime.txt"
