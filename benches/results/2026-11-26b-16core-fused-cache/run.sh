#!/usr/bin/env bash
# 16-core A/B: base vs new, eltwise and fused groups, threads 1 and 16, 2 interleaved rounds.
set -u
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)" > "$OUT/cpu.txt"
uptime > "$OUT/uptime.txt"
for r in 1 2; do
  for g in eltwise fused; do
    for w in base new; do
      timeout 100 ./bcast-$w bench --group $g --threads 1,16 --budget-ms 250 --json 2>/dev/null | sed "s/^{/{\"which\":\"$w\",\"round\":$r,\"isa\":\"default\",/" >> "$OUT/ab.jsonl"
    done
  done
done
uptime >> "$OUT/uptime.txt"
