#!/bin/sh
# 2026-11-29, fourth window (Intel Xeon model 207, 2 vCPU): what these files hold, and how
# they were made (nothing else compiling; uptime.txt before and after the peer run).
cargo build --release -p bcast-c -p bcast-cli --lib --bins
# The peers beside the harness that times each case's batches in a row (before the register
# kernels): compare_models.harness.{md,raw.jsonl}.
# Then, with the register kernels: compare_models.{md,raw.jsonl}.
rm -f target/release/model_bench_c
python3 benches/compare_models.py --threads 1,2 --rounds 3 --budget-ms 100 \
    --raw compare_models.raw.jsonl --markdown > compare_models.md
# The register kernels on and off (ab_regs_1t.txt, ab_regs_2t.txt; the script then in /tmp,
# now benches/ab_strategy.py with the same defaults).
python3 benches/ab_strategy.py --threads 1 --rounds 3
python3 benches/ab_strategy.py --threads 2 --rounds 3
# Call costs (the VM in a noisier state than in the third window: see uptime.txt).
cc -O2 benches/c/call_cost.c -Ibindings/c/include target/release/libbcast_c.a -lpthread -ldl -lm \
  -o /tmp/call_cost_c
for i in 1 2 3; do /tmp/call_cost_c >> call_cost_c.txt; done
target/release/examples/call_cost 7 > call_cost.txt
# Today's broadcast and element-wise groups at one and two threads (groups_1_2.jsonl).
target/release/bcast bench --group broadcast --group eltwise --threads 1,2 --json --budget-ms 400 > groups_1_2.jsonl
