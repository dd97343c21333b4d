#!/usr/bin/env bash
# Issue 50, second window of 2026-11-29 (Intel Xeon model 207, 2 vCPU): what a call costs once
# a prepared op keeps its kernel record and a C call builds no views (Rust and C, prepared
# and not), the prepared add from 1 KiB to 64 MiB at one thread and at two (the cost model's
# "never slower at N threads than at one"), and the team beside a rayon pool on the model
# nodes. Needs: cargo build --release -p bcast-cli --example call_cost -p bcast-c.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=benches/results/2026-11-29b-intel-prepared
{ date; uptime; } > "$out/uptime.txt"
lscpu > "$out/lscpu.txt"
cc -O2 benches/c/call_cost.c -Ibindings/c/include target/release/libbcast_c.a -lpthread -ldl -lm \
  -o /tmp/call_cost_c
: > "$out/call_cost_c.txt"
for round in 1 2 3; do
  /tmp/call_cost_c >> "$out/call_cost_c.txt"
done
target/release/examples/call_cost 7 > "$out/call_cost.txt"
{ date; uptime; } >> "$out/uptime.txt"
