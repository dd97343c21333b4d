#!/usr/bin/env bash
# The many-core sweep of issue 13: every `bcast bench` case at 1, 8, 64 and 1024 MiB of
# output on 1..cores threads (powers of two and the core count), one JSON line per case x
# size x threads, then a table of kernel GB/s (ratio to the in-process fill bound).
#
#   benches/scaling.sh [BCAST_BINARY] [OUT_DIR]
#
# Env: SIZES="1 8 64 1024" THREADS="1,2,4,8,16" CASES="row_f32 pixel_u8 ..." BUDGET_MS=400
# The 1024 MiB runs hold the output, an output-sized copy source and one allocating result:
# about 3 GiB; sizes that do not fit in half of MemAvailable are skipped.
set -euo pipefail
BIN=${1:-target/release/bcast}
OUT=${2:-scaling-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
cores=$(nproc)
if [[ -z "${THREADS:-}" ]]; then
  THREADS=1; t=2
  while (( t < cores )); do THREADS="$THREADS,$t"; t=$((t * 2)); done
  (( cores > 1 )) && THREADS="$THREADS,$cores"
fi
SIZES=${SIZES:-"1 8 64 1024"}
BUDGET_MS=${BUDGET_MS:-400}
case_args=()
for c in ${CASES:-}; do case_args+=(--case "$c"); done
avail_mib=$(( $(awk '/MemAvailable/ {print $2}' /proc/meminfo) / 1024 ))
{
  echo "# $(date -Is) $(uname -srm)"
  lscpu | grep -E 'Model name|^CPU\(s\)|L2|L3|NUMA node\(s\)' || true
  echo "# load: $(cat /proc/loadavg); threads $THREADS; sizes $SIZES MiB"
} | tee "$OUT/machine.txt"
for mib in $SIZES; do
  if (( mib * 3 > avail_mib / 2 )); then
    echo "skip $mib MiB: needs about $((mib * 3)) MiB, $avail_mib MiB available" >&2
    continue
  fi
  echo "# $mib MiB, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  "$BIN" bench --json --mib "$mib" --threads "$THREADS" --budget-ms "$BUDGET_MS" \
    "${case_args[@]}" > "$OUT/bench-$mib.json"
done
cat "$OUT"/bench-*.json > "$OUT/all.json"
python3 - "$OUT/all.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
threads = sorted({r["threads"] for r in rows})
def size(b):
    return f"{b / 2**20:.0f} MiB" if b >= 2**20 else f"{b} B"
print("| case | output | " + " | ".join(f"{t} thr GB/s (ratio)" for t in threads) + " |")
print("|---|---:|" + "---:|" * len(threads))
keyed = {}
for r in rows:
    kind = "reduce" if "reduce_gbps" in r else "copy"
    keyed.setdefault((r["case"], r["bytes"]), {})[r["threads"]] = r
for (case, b), by in keyed.items():
    cells = []
    for t in threads:
        r = by.get(t)
        if r is None:
            cells.append("-")
        elif "reduce_gbps" in r:
            cells.append(f"{r['reduce_gbps']:.1f} ({r['ratio_read']:.2f})")
        else:
            cells.append(f"{r['kernel_gbps']:.1f} ({r['ratio_fill']:.2f})")
    print(f"| {case} | {size(b)} | " + " | ".join(cells) + " |")
PY
