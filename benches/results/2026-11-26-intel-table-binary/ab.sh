#!/usr/bin/env bash
# A/B of two bcast binaries on the eltwise group: interleaved rounds, JSON lines per run.
set -u
out=$1; shift
base=$1; new=$2; rounds=${3:-3}; group=${4:-eltwise}
: > "$out"
uptime >> "$out.uptime"
for r in $(seq 1 "$rounds"); do
  for t in 1 2; do
    for which in base new; do
      bin=$base; [ $which = new ] && bin=$new
      "$bin" bench --group "$group" --threads $t --budget-ms 600 --json 2>/dev/null | sed "s/^{/{\"which\":\"$which\",\"round\":$r,\"isa\":\"${BCAST_STRATEGY:-default}\",/" >> "$out"
    done
  done
done
uptime >> "$out.uptime"
