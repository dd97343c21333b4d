#!/usr/bin/env python3
"""The `fused` group of `bcast bench` beside numpy, PyTorch eager, numexpr and torch.compile,
in interleaved rounds.

Every case is a chain of element-wise ops under numpy's broadcasting rule (the table below;
`bcast bench --json --group fused` prints the same names, expressions and shapes, and this
script refuses to run if they differ). Each round runs, at every thread count:

- bcast: `bcast bench --json --group fused`: fused (`Expression::evaluate_into` into a reused
  output) and the same ops one by one into reused buffers (`bcast_opbyop`);
- numpy: the expression as written, op by op, each op allocating its result;
- torch: PyTorch eager, the same (`maximum(v, 0)` is `torch.clamp_min`);
- numexpr: `numexpr.evaluate` of the same expression into a reused `out=` (`maximum(v, 0)` is
  written `where(v > 0, v, 0)`: numexpr's `maximum` computes in float64); skipped for f16,
  which numexpr computes and returns as float32;
- torch_compile: `torch.compile` of the same function (compiled before timing; it needs a C++
  compiler at run time and is skipped with the reason where it fails). Inductor computes an
  f16 chain in f32 and rounds once, so its f16 results are not the op-by-op ones.

Rates are GB/s of each case's traffic (every input read once plus the output written once,
10^9 bytes/s), the same figure `bcast bench` reports, so a ratio is a speedup. Per case and
thread count it prints the median over the rounds of each, and bcast fused's ratio to each
peer. The first line names the CPU and the versions. Threads: `torch.set_num_threads`,
`numexpr.set_num_threads`, and OMP/MKL/OpenBLAS/NUMEXPR environment variables for every peer
process (numpy's element-wise ops run on one thread anyway).

    python3 benches/compare_fused.py --threads 1,2 --rounds 3 [--bcast target/release/bcast]
        [--budget-ms 400] [--case NAME ...] [--raw FILE] [--markdown]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare import cpu_model, have, lines  # noqa: E402

# (base name, expression, [(input, shape)]): each case runs in f32 and f16 (`<base>_f32`,
# `<base>_f16`). The same table as FUSED_CASES in crates/bcast-cli/src/bench_fused.rs.
CHAINS = [
    ("bn", "x * s + b", [("x", [64, 64, 56, 56]), ("s", [64, 1, 1]), ("b", [64, 1, 1])]),
    ("ln", "(x - m) * r * g + b",
     [("x", [8192, 1024]), ("m", [8192, 1]), ("r", [8192, 1]), ("g", [1024]), ("b", [1024])]),
    ("bias_relu", "maximum(x + b, 0)", [("x", [8192, 1024]), ("b", [1024])]),
    ("residual", "(x + y) * s", [("x", [8192, 1024]), ("y", [8192, 1024]), ("s", [])]),
    ("tiny_chain", "(x + y) * s", [("x", [64]), ("y", [64]), ("s", [])]),
]
DTYPES = [("f32", "float32"), ("f16", "float16")]
# (name, expression, inputs, numpy dtype name), in bcast's order.
CASES = [(f"{base}_{suffix}", expr, inputs, dt)
         for base, expr, inputs in CHAINS for suffix, dt in DTYPES]
# numexpr's spelling where it differs.
NUMEXPR_EXPR = {"maximum(x + b, 0)": "where(x + b > 0, x + b, 0)"}
PEERS = ["numpy", "torch", "numexpr", "torch_compile"]


def operands(np, inputs, dtype):
    """The inputs: multiples of 1/64 in [-1.95, 1.95] that change sign (as bcast's)."""
    out = {}
    for j, (name, shape) in enumerate(inputs):
        n = 1
        for d in shape:
            n *= d
        salt = 37 * j + 11
        v = ((np.arange(n, dtype=np.int64) * 7 + salt) % 251 - 125).astype(np.float32) / 64
        out[name] = v.astype(dtype).reshape(shape)
    return out


def traffic(np, arrays):
    """Every input once plus the output (numpy's broadcast of them all) once."""
    shape = np.broadcast_shapes(*[a.shape for a in arrays.values()])
    size = next(iter(arrays.values())).dtype.itemsize
    n = 1
    for d in shape:
        n *= d
    return sum(a.nbytes for a in arrays.values()) + n * size


def seconds_per_call(f, budget):
    """Median seconds per call over batches of at least a millisecond, for about `budget`."""
    f()
    start = time.perf_counter()
    f()
    one = max(time.perf_counter() - start, 1e-9)
    batch = max(1, int(1e-3 / one + 0.999))
    samples = []
    end = time.perf_counter() + budget
    while len(samples) < 7 or (time.perf_counter() < end and len(samples) < 201):
        start = time.perf_counter()
        for _ in range(batch):
            f()
        samples.append((time.perf_counter() - start) / batch)
    return statistics.median(samples)


def peer(args):
    """Worker mode: one peer at one thread count, one JSON line per case."""
    import numpy as np
    threads = args.threads_one
    who = args.peer
    names = [c for c in CASES if not args.case or c[0] in args.case]

    def emit(name, **kw):
        print(json.dumps({"who": who, "case": name, "threads": threads, **kw}), flush=True)

    def skip_all(reason):
        for c in names:
            emit(c[0], skipped=reason)

    torch = None
    if who in ("torch", "torch_compile"):
        if not have("torch"):
            return skip_all("torch is not installed")
        import torch
        torch.set_num_threads(threads)
        version = torch.__version__
    elif who == "numexpr":
        if not have("numexpr"):
            return skip_all("numexpr is not installed")
        import numexpr
        numexpr.set_num_threads(threads)
        version = numexpr.__version__
    else:
        version = np.__version__
    if who == "torch_compile":
        try:
            probe = torch.compile(lambda a: a * 2 + 1, dynamic=False)
            probe(torch.ones(8))
        except Exception as e:  # noqa: BLE001 - any failure to compile skips the peer
            return skip_all("torch.compile fails here: "
                            + (str(e).strip().splitlines() or [type(e).__name__])[0][:200])

    for name, expr, inputs, dt in names:
        arrays = operands(np, inputs, dt)
        moved = traffic(np, arrays)
        order = [n for n, _ in inputs]
        if who == "numpy":
            env = {"maximum": np.maximum, **arrays}
            code = compile(expr, name, "eval")
            f = lambda: eval(code, {"__builtins__": {}}, env)  # noqa: E731
        elif who == "numexpr":
            if dt == "float16":
                emit(name, skipped="numexpr has no float16 (it computes and returns float32)")
                continue
            text = NUMEXPR_EXPR.get(expr, expr)
            out = np.empty(np.broadcast_shapes(*[a.shape for a in arrays.values()]), dtype=dt)
            numexpr.evaluate(text, local_dict=arrays, out=out)
            if out.dtype != np.dtype(dt):
                emit(name, skipped=f"numexpr returns {out.dtype}")
                continue
            f = lambda: numexpr.evaluate(text, local_dict=arrays, out=out)  # noqa: E731
        else:
            tensors = {k: torch.from_numpy(v) for k, v in arrays.items()}

            def maximum(a, b):
                if isinstance(b, (int, float)):
                    return torch.clamp_min(a, b)
                return torch.maximum(a, b)

            fn = eval(f"lambda {', '.join(order)}: {expr}", {"maximum": maximum})
            if who == "torch_compile":
                try:
                    fn = torch.compile(fn, dynamic=False)
                    fn(*[tensors[k] for k in order])
                except Exception as e:  # noqa: BLE001
                    emit(name, skipped="torch.compile fails: "
                         + (str(e).strip().splitlines() or [type(e).__name__])[0][:200])
                    continue
            targs = [tensors[k] for k in order]
            f = lambda: fn(*targs)  # noqa: E731
        if who == "torch" or who == "torch_compile":
            with torch.inference_mode():
                t = seconds_per_call(f, args.budget)
        else:
            t = seconds_per_call(f, args.budget)
        emit(name, gbps=moved / t / 1e9, ns_per_call=t * 1e9, traffic_bytes=moved,
             version=version)
    return 0


def peer_env(threads):
    env = dict(os.environ)
    for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
              "NUMEXPR_NUM_THREADS", "NUMEXPR_MAX_THREADS"):
        env[k] = str(threads)
    return env


def check_table(d):
    """Refuses bcast lines whose case differs from this script's table."""
    mine = {c[0]: c for c in CASES}
    c = mine.get(d["case"])
    if c is None:
        raise RuntimeError(f"bcast reports case {d['case']}, which this script does not know")
    _, expr, inputs, dt = c
    theirs = [[n, s] for n, s in d["inputs"]]
    if d["expr"] != expr or theirs != [[n, s] for n, s in inputs] or \
            {"float32": "f32", "float16": "f16"}[dt] != d["dtype"]:
        raise RuntimeError(f"case {d['case']}: bcast runs {d['expr']} on {theirs} "
                           f"({d['dtype']}), this script {expr} on {inputs} ({dt}); "
                           "update CASES in benches/compare_fused.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bcast", default=os.path.join(HERE, "..", "target", "release", "bcast"))
    ap.add_argument("--budget-ms", type=int, default=400)
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--raw", default=None, help="write every measurement here (JSON lines)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--peers", default=",".join(PEERS),
                    help="which peers to run (default: all of " + ",".join(PEERS) + ")")
    # Worker mode (the script runs itself once per peer and thread count).
    ap.add_argument("--peer", choices=PEERS, help=argparse.SUPPRESS)
    ap.add_argument("--threads-one", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.budget = args.budget_ms / 1000
    if args.peer:
        return peer(args)
    known = [c[0] for c in CASES]
    unknown = [n for n in args.case if n not in known]
    if unknown:
        print(f"compare_fused: unknown case {unknown[0]} (known: {', '.join(known)})",
              file=sys.stderr)
        return 2
    names = [n for n in known if not args.case or n in args.case]
    case_args = [a for n in names for a in ("--case", n)]
    peers = [p for p in args.peers.split(",") if p]
    for p in peers:
        if p not in PEERS:
            print(f"compare_fused: unknown peer {p} (known: {', '.join(PEERS)})",
                  file=sys.stderr)
            return 2
    thread_counts = [int(t) for t in args.threads.split(",")]
    rates = {}  # (who, case, threads) -> [GB/s per round]
    ns = {}  # (who, case, threads) -> [ns per call per round]
    ratio_bound = {}  # (case, threads) -> [bcast fused ratio to its bound per round]
    skipped = {}  # (who, case) -> reason
    raw = []
    machine, versions = None, {}
    for r in range(args.rounds):
        for t in thread_counts:
            got, _ = lines([args.bcast, "bench", "--json", "--group", "fused",
                            "--threads", str(t), "--budget-ms", str(args.budget_ms)]
                           + case_args)
            for d in got:
                if "machine" in d:
                    machine = d["machine"]
                    continue
                check_table(d)
                raw.append({"who": "bcast", "round": r, **d})
                key = (d["case"], d["threads"])
                rates.setdefault(("bcast",) + key, []).append(d["fused_gbps"])
                rates.setdefault(("bcast_opbyop",) + key, []).append(d["unfused_gbps"])
                ns.setdefault(("bcast",) + key, []).append(d["fused_ns_per_call"])
                ratio_bound.setdefault(key, []).append(d["ratio_bound"])
            for p in peers:
                got, _ = lines([sys.executable, os.path.abspath(__file__), "--peer", p,
                                "--threads-one", str(t), "--budget-ms",
                                str(args.budget_ms)] + case_args, env=peer_env(t))
                for d in got:
                    raw.append({"round": r, **d})
                    if "skipped" in d:
                        skipped[(p, d["case"])] = d["skipped"]
                        continue
                    versions[p] = d.get("version")
                    rates.setdefault((p, d["case"], d["threads"]), []).append(d["gbps"])
                    ns.setdefault((p, d["case"], d["threads"]), []).append(d["ns_per_call"])
        print(f"# round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    if args.raw:
        with open(args.raw, "w") as f:
            for d in raw:
                f.write(json.dumps(d) + "\n")
    for (p, case), reason in sorted(skipped.items()):
        print(f"compare_fused: {p} skipped {case}: {reason}", file=sys.stderr)
    who = ["bcast", "bcast_opbyop"] + peers
    head = (f"CPU: {cpu_model()}; {machine or ''}; "
            + ", ".join(f"{k} {v}" for k, v in versions.items() if v)
            + f"; medians of {args.rounds} interleaved rounds, GB/s of traffic (inputs read "
            "once + output written once); bcast/X = bcast fused over X")
    print(("" if args.markdown else "# ") + head)
    others = who[1:]
    cols = (["case", "threads"] + who + ["bcast_ns", "bcast/bound"]
            + [f"bcast/{w}" for w in others])
    if args.markdown:
        print("\n| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
    else:
        print(" ".join(f"{c:>14}" for c in cols))

    def med(table, key):
        v = table.get(key)
        return statistics.median(v) if v else None

    for name in names:
        for t in thread_counts:
            m = {w: med(rates, (w, name, t)) for w in who}
            cells = [f"{m[w]:.2f}" if m[w] else "-" for w in who]
            bns = med(ns, ("bcast", name, t))
            rb = med(ratio_bound, (name, t))
            cells += [f"{bns:.0f}" if bns else "-", f"{rb:.2f}" if rb else "-"]
            cells += [f"{m['bcast'] / m[w]:.2f}" if m["bcast"] and m[w] else "-"
                      for w in others]
            row = [name, str(t)] + cells
            if args.markdown:
                print("| " + " | ".join(row) + " |")
            else:
                print(" ".join(f"{c:>14}" for c in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
