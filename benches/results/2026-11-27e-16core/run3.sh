#!/usr/bin/env bash
# The lent 16-core machine, third call: the two-operand cases of the eltwise group at 16 threads, 232fd6f (main) and
# 67b6674 (new: the two-operand writer inlined again) alternating, 2 rounds.
#   OUT=folder benches/results/2026-11-27e-16core/run3.sh DIR_WITH_bcast-main_AND_bcast-new
set -u
DIR=${1:?folder}
uptime > "$OUT/uptime3.txt"
cases=""; for c in bias_add_f32 row_mul_f32 column_sub_f32 outer_add_f32 same_add_f32 mid_mul_f16 scalar_max_f32 tiny_add_f32; do cases="$cases --case $c"; done
for r in ${ROUNDS:-1 2}; do
  for w in main new; do
    timeout 25 "$DIR/bcast-$w" bench --group eltwise --threads 16 --budget-ms 120 --json $cases \
      | grep '"case"' | sed "s/^{/{\"which\":\"$w\",\"round\":$r,/" >> "$OUT/inline_ab.jsonl"
  done
done
uptime >> "$OUT/uptime3.txt"
