#!/usr/bin/env bash
# The lent 16-core machine, one call: (1) the element-wise streaming windows at 1 GiB,
# 16 threads, window vs ordinary stores (one binary, BCAST_STRATEGY), 2 alternating rounds;
# (2) the fused group beside numpy and PyTorch eager, threads 1 and 16, 3 rounds;
# (3) the eltwise group beside PyTorch and ONNX Runtime, threads 1 and 16, 3 rounds;
# (4) the fused group at 1 GiB, 16 threads, against its bound.
#   PARTS=1234 (the parts to run) OUT=folder benches/results/2026-11-27e-16core/run.sh path/to/bcast
set -u
BIN=${1:?bcast binary}
here=$(cd "$(dirname "$0")/../../.." && pwd)
{ date -Is; lscpu | grep -E 'Vendor|Model name|^CPU\(s\)|L2|L3|NUMA'; nproc; free -g | head -2;
  python3 -c 'import torch, numpy, onnxruntime; print("torch", torch.__version__, "numpy", numpy.__version__, "ort", onnxruntime.__version__)'; uptime; } > "$OUT/machine.txt" 2>&1
cases="--case sum4_f32 --case same_add_f32 --case select_f32 --case mid_mul_f16 --case bias_add_f32 --case row_gt_f32"
[[ "${PARTS:-1234}" == *1* ]] && for r in 1 2; do
  for s in window none; do
    BCAST_STRATEGY=eltwise-stream=$s timeout 100 "$BIN" bench --group eltwise --mib 1024 --threads 16 --budget-ms 300 --json $cases \
      | sed "s/^{/{\"stream\":\"$s\",\"round\":$r,/" >> "$OUT/stream_1gib.jsonl"
  done
done
echo "stream done $(date -Is) $(uptime)" >> "$OUT/machine.txt"
[[ "${PARTS:-1234}" == *2* ]] && timeout 170 python3 "$here/benches/compare_fused.py" --bcast "$BIN" --threads 1,16 --rounds 3 --budget-ms 150 \
  --peers numpy,torch --raw "$OUT/fused_raw.jsonl" --markdown > "$OUT/fused_table.md" 2> "$OUT/fused_err.txt"
echo "fused done $(date -Is) $(uptime)" >> "$OUT/machine.txt"
elt=""; for c in bias_add_f32 row_mul_f32 column_sub_f32 outer_add_f32 same_add_f32 pdpd_mul_f32 mid_mul_f16 row_gt_f32 scalar_max_f32 tiny_add_f32 select_f32; do elt="$elt --case $c"; done
[[ "${PARTS:-1234}" == *3* ]] && timeout 150 python3 "$here/benches/compare.py" --bcast "$BIN" --threads 1,16 --rounds 3 --budget-ms 150 $elt \
  --raw "$OUT/elt_raw.jsonl" --markdown > "$OUT/elt_table.md" 2> "$OUT/elt_err.txt"
echo "eltwise done $(date -Is) $(uptime)" >> "$OUT/machine.txt"
[[ "${PARTS:-1234}" == *4* ]] && timeout 80 "$BIN" bench --group fused --mib 1024 --threads 16 --budget-ms 300 --json > "$OUT/fused_1gib.jsonl" 2>&1
echo "all done $(date -Is) $(uptime)" >> "$OUT/machine.txt"
