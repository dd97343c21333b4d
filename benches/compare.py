#!/usr/bin/env python3
"""bcast beside PyTorch and ONNX Runtime on the same cases, in interleaved rounds.

Each round runs, at every thread count: `bcast bench --json` (the broadcast and element-wise
cases of `torch_baseline.py`'s table), `torch_baseline.py` and `ort_baseline.py`. Per case and
thread count it prints the median rate of each over the rounds (GB/s of output), and bcast's
ratio to the best peer. The first line names the CPU and the versions. A peer that is not
installed is skipped with a word. Raw lines go to --raw (JSON lines) for the record.

    python3 benches/compare.py --threads 1,2 --rounds 3 [--bcast target/release/bcast]
        [--budget-ms 400] [--case NAME ...] [--raw FILE] [--markdown]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_baseline import CASES, ELT_CASES  # noqa: E402


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def lines(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()[-500:]}")
    out = []
    for line in p.stdout.splitlines():
        if line.strip().startswith("{"):
            out.append(json.loads(line))
    return out, p.stderr


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bcast", default=os.path.join(HERE, "..", "target", "release", "bcast"))
    ap.add_argument("--budget-ms", type=int, default=400)
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--raw", default=None, help="write every measurement here (JSON lines)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    names = [c[0] for c in CASES] + [c[0] for c in ELT_CASES]
    if args.case:
        names = [n for n in names if n in args.case]
    case_args = [a for n in names for a in ("--case", n)]
    peers = []
    if have("torch"):
        peers.append(("torch", [sys.executable, os.path.join(HERE, "torch_baseline.py")]))
    else:
        print("compare: torch is not installed here; PyTorch skipped", file=sys.stderr)
    if have("onnxruntime") and have("onnx"):
        peers.append(("ort", [sys.executable, os.path.join(HERE, "ort_baseline.py")]))
    else:
        print("compare: onnxruntime is not installed here; ONNX Runtime skipped", file=sys.stderr)
    budget = args.budget_ms / 1000
    rates = {}  # (who, case, threads) -> [GB/s per round]
    raw = []
    machine, versions = None, {}
    for r in range(args.rounds):
        for t in args.threads.split(","):
            got, _ = lines([args.bcast, "bench", "--json", "--threads", t,
                            "--budget-ms", str(args.budget_ms)] + case_args)
            for d in got:
                if "machine" in d:
                    machine = d["machine"]
                    continue
                raw.append({"who": "bcast", "round": r, **d})
                rates.setdefault(("bcast", d["case"], d["threads"]), []).append(d["kernel_gbps"])
            for who, cmd in peers:
                got, _ = lines(cmd + ["--threads", t, "--budget", str(budget)] +
                               [a for n in names for a in ("--case", n)])
                for d in got:
                    raw.append({"who": who, "round": r, **d})
                    versions[who] = d.get("torch", d.get("ort"))
                    # torch_baseline reports broadcast cases as torch_copy_gbps
                    rate = d.get("ort_gbps", d.get("torch_gbps", d.get("torch_copy_gbps")))
                    rates.setdefault((who, d["case"], d["threads"]), []).append(rate)
        print(f"# round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    if args.raw:
        with open(args.raw, "w") as f:
            for d in raw:
                f.write(json.dumps(d) + "\n")
    who = ["bcast"] + [p for p, _ in peers]
    head = (f"CPU: {cpu_model()}; {machine or ''}; "
            + ", ".join(f"{k} {v}" for k, v in versions.items())
            + f"; medians of {args.rounds} interleaved rounds, GB/s of output")
    print(("" if args.markdown else "# ") + head)
    cols = ["case", "threads"] + who + ["bcast/best peer"]
    if args.markdown:
        print("\n| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
    else:
        print(" ".join(f"{c:>16}" for c in cols))
    for name in names:
        for t in args.threads.split(","):
            t = int(t)
            cells = []
            med = {}
            for w in who:
                v = rates.get((w, name, t))
                med[w] = statistics.median(v) if v else None
                cells.append(f"{med[w]:.1f}" if v else "-")
            best = max((med[w] for w in who[1:] if med[w]), default=None)
            ratio = f"{med['bcast'] / best:.2f}" if best and med["bcast"] else "-"
            row = [name, str(t)] + cells + [ratio]
            if args.markdown:
                print("| " + " | ".join(row) + " |")
            else:
                print(" ".join(f"{c:>16}" for c in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
