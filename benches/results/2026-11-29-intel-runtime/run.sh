#!/usr/bin/env bash
# The runtime-call measurements of 2026-11-29 (issue 50), in one quiet window: the call's
# cost (Rust and C, prepared and not), the team beside a rayon pool on model nodes, the
# model group beside OpenVINO, ONNX Runtime and PyTorch. Needs: cargo build --release -p bcast-cli -p bcast-c --example
# call_cost; the binary of 376cbf9 at $OLD (default /tmp/bcast-old).
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=benches/results/2026-11-29-intel-runtime
old=${OLD:-/tmp/bcast-old}
{ date; uptime; } > "$out/uptime.txt"
lscpu > "$out/lscpu.txt"
cc -O2 benches/c/call_cost.c -Ibindings/c/include target/release/libbcast_c.a -lpthread -ldl -lm \
  -o /tmp/call_cost_c
bench=target/release/examples/call_cost
for round in 1 2 3; do
  /tmp/call_cost_c >> "$out/call_cost_c.txt"
done
"$bench" 7 > "$out/call_cost.txt"
python3 benches/compare_models.py --threads 1,2 --rounds 3 --budget-ms 100 \
  --raw "$out/models.jsonl" --markdown > "$out/models.md" 2> "$out/models.err"
# ab.py against 376cbf9 was not run this session (the window went to the model table).
{ date; uptime; } >> "$out/uptime.txt"
