#!/usr/bin/env bash
# The lent 16-core machine, one call, the f32 register chains in AVX-512 registers:
# (1) the fused group's f32 cases, `ymm` (BCAST_STRATEGY=arithmetic=avx2, the former path)
#     and `zmm` (the default) alternating in one binary, threads 1, 4 and 16, 3 rounds;
# (2) the fused group beside numpy and PyTorch eager, threads 1, 4 and 16, 3 rounds.
#   OUT=folder benches/results/2026-11-27i-16core-zmm/run.sh path/to/bcast
set -u
BIN=${1:?bcast binary}
here=$(cd "$(dirname "$0")/../../.." && pwd)
{ date -Is; lscpu | grep -E 'Vendor|Model name|^CPU\(s\)|L2|L3|NUMA'; nproc; free -g | head -2;
  python3 -c 'import torch, numpy; print("torch", torch.__version__, "numpy", numpy.__version__)'; uptime; } > "$OUT/machine.txt" 2>&1
cases=""; for c in bn_f32 ln_f32 bias_relu_f32 residual_f32 tiny_chain_f32; do cases="$cases --case $c"; done
for r in 1 2 3; do
  for w in ymm zmm; do
    if [ $w = ymm ]; then s=arithmetic=avx2; else s=; fi
    BCAST_STRATEGY=$s timeout 60 "$BIN" bench --group fused --threads 1,4,16 --budget-ms 150 --json $cases \
      | grep '"case"' | sed "s/^{/{\"which\":\"$w\",\"round\":$r,/" >> "$OUT/zmm_ab.jsonl"
  done
done
echo "ab done $(date -Is) $(uptime)" >> "$OUT/machine.txt"
timeout 280 python3 "$here/benches/compare_fused.py" --bcast "$BIN" --threads 1,4,16 --rounds 3 --budget-ms 150 \
  --peers numpy,torch --raw "$OUT/fused_raw.jsonl" --markdown > "$OUT/fused_table.md" 2> "$OUT/fused_err.txt"
echo "all done $(date -Is) $(uptime)" >> "$OUT/machine.txt"
