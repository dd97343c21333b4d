#!/usr/bin/env python3
"""The `model` group of `bcast bench` under several strategies (`BCAST_STRATEGY` strings) of one
build, in interleaved rounds (the variants' order turns by one each round): what a strategy
knob is worth on each node, on this machine.

    python3 benches/ab_strategy.py [--threads 1] [--rounds 3] [--budget-ms 100]
        [--variant NAME=STRATEGY ...] [--bcast target/release/bcast]

Default variants: `both` (this CPU's table entry), `f32_off` (`arithmetic=avx2`: no f32 kernels
in AVX-512 registers) and `off` (`f16=widened,arithmetic=avx2`: no kernels in 64-byte
registers). Prints per case the median microseconds per call of each variant and the ratio of
the last variant's time to each other's (above 1: that variant is faster).
"""
import argparse
import json
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", default="1")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--budget-ms", default="100")
    p.add_argument("--variant", action="append", default=[])
    p.add_argument("--bcast", default=os.path.join(HERE, "..", "target", "release", "bcast"))
    args = p.parse_args()
    variants = [v.split("=", 1) for v in args.variant] or [
        ["both", ""],
        ["f32_off", "arithmetic=avx2"],
        ["off", "f16=widened,arithmetic=avx2"],
    ]
    times = {}
    for r in range(args.rounds):
        k = r % len(variants)
        for name, strategy in variants[k:] + variants[:k]:
            env = dict(os.environ, BCAST_STRATEGY=strategy)
            out = subprocess.run(
                [args.bcast, "bench", "--group", "model", "--json", "--threads", args.threads,
                 "--budget-ms", args.budget_ms],
                env=env, capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                d = json.loads(line)
                if "case" in d:
                    times.setdefault(d["case"], {}).setdefault(name, []).append(d["us_per_call"])
    last = variants[-1][0]
    print(f"threads {args.threads}; medians of {args.rounds} rounds, us per call; "
          f"ratio = {last} / variant")
    for case, per in times.items():
        m = {k: statistics.median(v) for k, v in per.items()}
        cells = " ".join(f"{k} {m[k]:9.2f}" for k, _ in variants)
        ratios = " ".join(f"{last}/{k} {m[last] / m[k]:5.2f}" for k, _ in variants[:-1])
        print(f"{case:36} {cells}  {ratios}")


if __name__ == "__main__":
    main()
