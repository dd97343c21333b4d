#!/usr/bin/env python3
"""A/B of `bcast bench` configurations in alternating runs: each round runs every
configuration once, in turn forwards and backwards (A, B, B, A, ...), and per case and thread count it prints the median
kernel rate of each configuration (fused_gbps for the fused group; output GB/s of a call for
the model group, which has no bound: its bound column reads 0), the median of the per-round
ratios to the first one, and the median ratio to the case's own bound (ratio_fill, or
ratio_traffic for element-wise cases, ratio_bound for fused ones).
Pairing within rounds keeps a drift of the machine's speed out of the ratios.

    python3 benches/ab.py --rounds 5 --threads 1,2 \\
        --config 'table=' --config 'window=BCAST_STRATEGY=stream=window' -- --case scalar_f32
    python3 benches/ab.py --config 'old=@/tmp/bcast-old' --config 'new=@target/release/bcast'

A configuration is NAME=SPEC, SPEC being space-separated VAR=VALUE settings for the run and
@BINARY for another binary (`new=@/tmp/bcast BCAST_STRATEGY=prefetch=0`: both). Everything after `--` goes to every `bcast bench` call.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run(binary, env, threads, budget, extra):
    cmd = [binary, "bench", "--json", "--threads", threads, "--budget-ms", str(budget)] + extra
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        d = json.loads(line)
        if "case" not in d:
            continue
        rate = d.get("kernel_gbps", d.get("reduce_gbps", d.get("fused_gbps")))
        if rate is None and "us_per_call" in d:
            # The model group times calls: its rate is output bytes per microsecond (GB/s
            # up to 1e-3), and it has no bound of its own.
            rate = d["bytes"] / d["us_per_call"] / 1e3
        bound = d.get("ratio_fill", d.get("ratio_traffic", d.get("ratio_read", d.get("ratio_bound"))))
        bound = 0.0 if bound is None else bound
        rows[(d["case"], d["threads"])] = (rate, bound)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--budget-ms", type=int, default=300)
    ap.add_argument("--binary", default="target/release/bcast")
    ap.add_argument("--config", action="append", required=True)
    ap.add_argument("extra", nargs="*")
    args = ap.parse_args()
    configs = []
    for c in args.config:
        name, _, spec = c.partition("=")
        env, binary = dict(os.environ), args.binary
        for word in spec.split():
            if word.startswith("@"):
                binary = word[1:]
            else:
                k, _, v = word.partition("=")
                env[k] = v
        configs.append((name, binary, env))
    results = {name: [] for name, _, _ in configs}
    for r in range(args.rounds):
        # A, B then B, A: neither configuration always runs right after the other.
        for name, binary, env in (configs if r % 2 == 0 else configs[::-1]):
            results[name].append(run(binary, env, args.threads, args.budget_ms, args.extra))
        print(f"# round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    first = configs[0][0]
    keys = sorted(results[first][0])
    names = [n for n, _, _ in configs]
    print("case threads " + " ".join(f"{n}_GB/s {n}_bound" for n in names)
          + " " + " ".join(f"{n}/{first}" for n in names[1:]))
    for key in keys:
        cells = []
        for n in names:
            rates = [rnd[key][0] for rnd in results[n] if key in rnd]
            bounds = [rnd[key][1] for rnd in results[n] if key in rnd]
            cells.append(f"{statistics.median(rates):.1f} {statistics.median(bounds):.2f}")
        ratios = []
        for n in names[1:]:
            rs = [b[key][0] / a[key][0] for a, b in zip(results[first], results[n])
                  if key in a and key in b and a[key][0] > 0]
            ratios.append(f"{statistics.median(rs):.2f}")
        print(f"{key[0]} {key[1]} " + " ".join(cells) + " " + " ".join(ratios))


if __name__ == "__main__":
    main()
