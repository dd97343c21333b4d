#!/usr/bin/env bash
# Issue 50, window of 2026-11-29 05:xx (Intel Xeon model 207, 2 vCPU): after the context
# carries the strategy (no process-global on a call's path), the op factor of the cost model
# and the C one-shot call on addresses: what a call costs (Rust and C, prepared and not), the
# prepared add from 1 KiB to 64 MiB at one thread and at two, each op's cost next to add,
# and the model nodes beside OpenVINO, ONNX Runtime and PyTorch.
# Needs: cargo build --release -p bcast-c -p bcast-cli --lib --bins --example call_cost --example op_cost
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=benches/results/2026-11-29c-intel-context
{ date; uptime; } > "$out/uptime.txt"
lscpu > "$out/lscpu.txt"
cc -O2 benches/c/call_cost.c -Ibindings/c/include target/release/libbcast_c.a -lpthread -ldl -lm \
  -o /tmp/call_cost_c
: > "$out/call_cost_c.txt"
for round in 1 2 3; do
  /tmp/call_cost_c >> "$out/call_cost_c.txt"
done
target/release/examples/call_cost 7 > "$out/call_cost.txt"
target/release/examples/op_cost 7 > "$out/op_cost.txt"
{ date; uptime; } >> "$out/uptime.txt"
python3 benches/compare_models.py --threads 1,2 --rounds 3 --budget-ms 100 \
  --raw "$out/compare_models.raw.jsonl" --markdown > "$out/compare_models.md"
{ date; uptime; } >> "$out/uptime.txt"
