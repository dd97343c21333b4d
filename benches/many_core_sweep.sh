#!/usr/bin/env bash
# One pass over every `bcast bench` group (broadcast, reduce, eltwise) at 1..cores threads,
# with PyTorch and numpy on the same cases, for a machine that has no Rust toolchain: build
# the binary elsewhere (`cargo build --release -p bcast-cli`, strip it) and pass its path.
#
#   benches/many_core_sweep.sh BCAST_BINARY OUT_DIR [ROUND]
#
# Env: THREADS="1,2,4,8,16" (default: powers of two and the core count), BUDGET_MS=400.
# Writes OUT_DIR/machine.txt, bcast-ROUND.jsonl, torch-ROUND.jsonl and numpy-ROUND.jsonl
# (ROUND defaults to 1; run it three times for medians). Every figure is GB/s of output.
set -euo pipefail
BIN=${1:?bcast binary}
OUT=${2:?output folder}
ROUND=${3:-1}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
cores=$(nproc)
if [[ -z "${THREADS:-}" ]]; then
  THREADS=1; t=2
  while (( t < cores )); do THREADS="$THREADS,$t"; t=$((t * 2)); done
  (( cores > 1 )) && THREADS="$THREADS,$cores"
fi
BUDGET_MS=${BUDGET_MS:-400}
{
  echo "# $(date -Is) $(uname -srm) round $ROUND"
  lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket|L1d|L2|L3|NUMA node' || true
  grep -o -w -E 'avx2|avx512f|f16c|erms|fsrm' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
  echo "# load: $(cat /proc/loadavg); threads $THREADS; budget $BUDGET_MS ms"
  python3 -c 'import torch, numpy; print("# torch", torch.__version__, "numpy", numpy.__version__)' 2>/dev/null || true
} >> "$OUT/machine.txt"
"$BIN" bench --json --threads "$THREADS" --budget-ms "$BUDGET_MS" > "$OUT/bcast-$ROUND.jsonl"
python3 "$here/torch_baseline.py" --threads "$THREADS" --budget "$(awk "BEGIN {print $BUDGET_MS / 1000}")" \
  > "$OUT/torch-$ROUND.jsonl" || echo "torch_baseline failed" >&2
python3 "$here/numpy_baseline.py" --budget-ms "$BUDGET_MS" > "$OUT/numpy-$ROUND.jsonl" \
  || echo "numpy_baseline failed" >&2
echo "# done $(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
