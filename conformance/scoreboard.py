#!/usr/bin/env python3
"""Runs the conformance suite against every runtime adapter and writes SCOREBOARD.md.

    python3 conformance/scoreboard.py                  # run every available adapter, write the table
    python3 conformance/scoreboard.py --only numpy     # rerun some, keep the others' saved results
    python3 conformance/scoreboard.py --saved          # only rewrite SCOREBOARD.md from saved results

Each adapter runs as `bcast conformance --exec '<adapter> {case} {out}' --json -j 2 conformance`
(see conformance/README.md, "Running the suite against any runtime"); the JSON lines are saved
in target/scoreboard/<key>.jsonl with <key>.meta.json (version, command, duration). The table
counts pass / fail / crash / timeout / skip per group and lists the failures by cause.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ADAPTERS = HERE / "adapters"
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
RESULTS = TARGET / "scoreboard"
REGENERATE = "cargo build --release -p bcast-cli && python3 conformance/scoreboard.py"


def version_of(module):
    def get():
        try:
            mod = __import__(module)
        except ImportError:
            return None
        return str(getattr(mod, "__version__", "?")).split("-")[0]
    return get


def bcast_version(binary):
    def get():
        try:
            return subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                                  check=True).stdout.split()[-1]
        except (OSError, subprocess.CalledProcessError):
            return None
    return get


def adapters(binary):
    py = sys.executable
    return [
        # key, runtime shown, script, version (None: not available)
        ("bcast-cli", "bcast (CLI)", f"{py} {ADAPTERS / 'bcast_cli_adapter.py'}", bcast_version(binary)),
        ("bcast-python", "bcast (Python package)", f"{py} {ADAPTERS / 'bcast_python_adapter.py'}",
         version_of("bcast")),
        ("numpy", "numpy", f"{py} {ADAPTERS / 'numpy_adapter.py'}", version_of("numpy")),
        ("openvino-cpu", "OpenVINO CPU plugin", f"{py} {ADAPTERS / 'openvino_cpu_adapter.py'}",
         version_of("openvino")),
        ("openvino-reference", "OpenVINO reference (constant folding)",
         f"{py} {ADAPTERS / 'openvino_reference_adapter.py'}", version_of("openvino")),
        ("onnxruntime", "ONNX Runtime (CPU)", f"{py} {ADAPTERS / 'onnxruntime_adapter.py'}",
         version_of("onnxruntime")),
    ]


def run_one(key, name, script, version, binary, jobs, timeout, dirs=None):
    """Runs the adapter on the whole suite, or (dirs) on some case folders only, merging
    their outcomes into the saved ones."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    command = [str(binary), "conformance", "--exec", f"{script} {{case}} {{out}}", "--json",
               "-j", str(jobs), "--timeout-s", str(timeout),
               *([str(Path(d).resolve()) for d in dirs] if dirs else [str(HERE)])]
    print(f"running {name} {version}: {' '.join(command)}", file=sys.stderr, flush=True)
    start = time.monotonic()
    env = dict(os.environ, BCAST=str(binary))
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    seconds = time.monotonic() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{name}: bcast conformance failed: {proc.stderr.strip()}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    saved = RESULTS / f"{key}.jsonl"
    meta = {"key": key, "name": name, "version": version, "seconds": round(seconds, 1),
            "jobs": jobs, "summary": proc.stdout.strip().splitlines()[-1]}
    if dirs:
        if not saved.is_file():
            raise SystemExit(f"{name}: no saved results to update; run it on the whole suite")
        new = {json.loads(ln)["case"]: ln for ln in lines}
        rerun = len(new)
        old = [ln for ln in saved.read_text().splitlines() if ln.strip()]
        lines = [new.pop(json.loads(ln)["case"], ln) for ln in old] + list(new.values())
        meta = json.loads((RESULTS / f"{key}.meta.json").read_text())
        meta["summary"] = f"{sum(1 for ln in lines if json.loads(ln)['verdict'] == 'pass')} passed"
        meta["updated"] = meta.get("updated", []) + [
            {"dirs": [str(d) for d in dirs], "cases": rerun, "seconds": round(seconds, 1)}]
    saved.write_text("\n".join(lines) + "\n")
    (RESULTS / f"{key}.meta.json").write_text(json.dumps(meta, indent=1))
    print(f"  {proc.stdout.strip().splitlines()[-1]} in {seconds:.0f} s", file=sys.stderr)


# ---------------------------------------------------------------------------------------
# Clustering failures by cause.
# ---------------------------------------------------------------------------------------

def case_info(folder: Path):
    """(what the case runs, dtype, auto_broadcast or reduce mode) for naming a cluster:
    `add`, `broadcast pdpd`, `IR model`..."""
    try:
        j = json.loads((folder / "case.json").read_text())
    except (OSError, ValueError):
        j = {}
    if (folder / "model.xml").is_file():
        return "IR model", None, None
    op = j.get("op", "broadcast")
    inputs = j.get("inputs") or []
    pick = 1 if op == "select" and len(inputs) > 1 else 0
    dtype = None
    if inputs:
        try:
            a = np.load(folder / inputs[pick], mmap_mode="r", allow_pickle=False)
            k = a.dtype.kind
            dtype = {"U": "str", "b": "bool"}.get(k, f"{k}{a.dtype.itemsize * 8}")
        except (OSError, ValueError):
            dtype = None
    if op == "eltwise":
        return j.get("eltwise"), dtype, j.get("auto_broadcast", "numpy")
    if op == "select":
        return "select", dtype, j.get("auto_broadcast", "numpy")
    if op == "reduce":
        return "reduce", dtype, j.get("mode")
    return f"broadcast {j.get('mode')}", dtype, None


def norm(text):
    text = re.sub(r"(?<!\S)/\S*/([^/\s]+)", r"\1", text)  # paths: their last part
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"\(\w+\)", "(…)", text)
    text = re.sub(r"\btype \w+ version", "type … version", text)
    text = re.sub(r"\b[A-Za-z]+_\d+\b", lambda m: re.sub(r"\d+$", "N", m.group()), text)
    text = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text[:140]


def cause(o):
    r = o["reason"]
    v = o["verdict"]
    if v == "crash":
        return r
    if v == "timeout":
        return "timed out"
    if v == "skip":
        msg = r.split("unsupported:", 1)[-1].strip() if "unsupported:" in r else r
        return "not supported: " + norm(re.sub(r" on \w+ \(left unfolded\)", " (left unfolded)", msg))
    if "expected a rejection" in r:
        return "accepts what the suite rejects"
    if "expected outputs, but" in r:
        msg = r.split("): ", 1)[1] if re.search(r"refused \(exit -?\d+\): ", r) else ""
        msg = re.sub(r"^(refused: |error: )", "", msg)
        msg = re.sub(r"^\w+(Error|Exception|Fail)\w*: ", "", msg)
        return "refuses: " + (norm(msg) or "(no message)")
    if "dtype differs" in r:
        return "wrong dtype: " + r.split("dtype differs: ", 1)[1]
    if "shape differs" in r:
        return "wrong shape"
    if "differ" in r:
        return "wrong values"
    if "missing output" in r:
        return "missing output"
    return norm(r)


def example(o):
    r = re.sub(r"(?<!\S)/\S*/([^/\s]+)", r"\1", o["reason"])  # paths: their last part
    r = re.sub(r"^out\d\.npy: ", "", r)
    if re.search(r"refused \(exit -?\d+\): ", r):
        r = re.sub(r"^(refused: |error: )", "", r.split("): ", 1)[1])
    return (r[:150] + "…") if len(r) > 150 else r


def relative(case):
    p = Path(case)
    try:
        return str(p.resolve().relative_to(HERE))
    except ValueError:
        return case


GROUP_ORDER = ["cases/spec", "cases/openvino", "cases/pdpd", "cases/axes", "cases/multi",
               "cases/dtypes", "cases/onnx", "cases/errors", "reduce"]


def group_key(g):
    if g in GROUP_ORDER:
        return (0, GROUP_ORDER.index(g), g)
    if g.startswith("eltwise/"):
        return (1, 0, g)
    return (2, 0, g)


def cell(c):
    s = f"{c['pass']}/{sum(c.values())}"
    extra = [f"{c[k]} {k}" for k in ("crash", "timeout", "skip") if c[k]]
    return s + (" (" + ", ".join(extra) + ")" if extra else "")


def write_board(keys_names):
    runs = []
    for key, name, _, _ in keys_names:
        f = RESULTS / f"{key}.jsonl"
        if not f.is_file():
            continue
        meta = json.loads((RESULTS / f"{key}.meta.json").read_text())
        outcomes = [json.loads(ln) for ln in f.read_text().splitlines() if ln.strip()]
        runs.append((meta, outcomes))
    groups = sorted({o["group"] for _, os_ in runs for o in os_}, key=group_key)
    out = [f"<!-- regenerate: {REGENERATE} -->",
           "# Conformance scoreboard",
           "",
           f"Regenerate: `{REGENERATE}` (CPU-bound: about an hour at `-j 2`; "
           "`--only KEY` reruns one runtime, `--only KEY --update DIR...` reruns some cases, `--saved` rewrites this file from the saved results).",
           "",
           "Every runtime runs the same case folders through its adapter in `conformance/adapters/` "
           "(protocol: `conformance/README.md`, \"Running the suite against any runtime\"), compared "
           "bit for bit as bcast is. A cell is `passed/cases`; *crash*: killed by a signal; "
           "*skip*: the adapter said the runtime cannot run that kind of case (exit 3); every "
           "other non-pass is a wrong value, dtype or shape, a refusal of a valid case, or the "
           "acceptance of an invalid one.",
           ""]
    out.append("| runtime | version | passed | failed | crashed | timed out | skipped | cases | run time (`-j 2`) |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for meta, os_ in runs:
        c = Counter(o["verdict"] for o in os_)
        out.append(f"| {meta['name']} | {meta['version']} | {c['pass']} | {c['fail']} | {c['crash']} "
                   f"| {c['timeout']} | {c['skip']} | {len(os_)} | {meta['seconds'] / 60:.1f} min |")
    for meta, _ in runs:
        for u in meta.get("updated", []):
            out.append("")
            out.append(f"{meta['name']}: {u['cases']} cases rerun after an adapter fix and merged in "
                       f"({', '.join(relative(d) for d in u['dirs'])}; {u['seconds'] / 60:.1f} min).")
    missing = [name for key, name, _, _ in keys_names if not (RESULTS / f"{key}.jsonl").is_file()]
    if missing:
        out.append("")
        out.append("Not run (runtime not installed here): " + ", ".join(missing) + ".")
    out += ["", "## Per group", "",
            "| group | " + " | ".join(m["name"] for m, _ in runs) + " |",
            "|---|" + "---|" * len(runs)]
    for g in groups:
        row = []
        for _, os_ in runs:
            c = Counter({"pass": 0, "fail": 0, "crash": 0, "timeout": 0, "skip": 0})
            c.update(o["verdict"] for o in os_ if o["group"] == g)
            row.append(cell(c))
        out.append(f"| `{g}` | " + " | ".join(row) + " |")
    for meta, os_ in runs:
        bad = [o for o in os_ if o["verdict"] != "pass"]
        out += ["", f"## {meta['name']} {meta['version']}: failures by cause", ""]
        if not bad:
            out.append("None: every case passes.")
            continue
        clusters = defaultdict(list)
        for o in bad:
            what, dtype, variant = case_info(Path(o["case"]))
            skipped = o["verdict"] == "skip"
            clusters[(skipped, "" if skipped else what, cause(o))].append((o, dtype, variant, what))
        ordered = sorted(clusters.items(), key=lambda kv: (kv[0][0], -len(kv[1]), kv[0][1:]))
        wrong = sum(len(v) for k, v in ordered if not k[0])
        out.append(f"{wrong} failed, crashed or timed out, in "
                   f"{sum(1 for k in clusters if not k[0])} causes (op, cause), largest first; then "
                   f"{len(bad) - wrong} skipped.")
        out.append("")
        for (skipped, what, why), items in ordered:
            dtypes = sorted({d for _, d, _, _ in items if d})
            variants = sorted({v for _, _, v, _ in items if v})
            n = len(items)
            on = ", ".join(dtypes) + (f"; {', '.join(variants)}" if variants else "")
            if skipped:
                ops = sorted({w for _, _, _, w in items})
                what = ", ".join(ops) if len(ops) <= 6 else f"{len(ops)} ops"
            line = (f"- **{what}**: {why}: {n} case{'s' if n > 1 else ''}"
                    + (f" ({on})" if on else ""))
            if not skipped:
                first = items[0][0]
                line += f"; e.g. `{relative(first['case'])}`: {example(first)}"
            out.append(line)
    (HERE / "SCOREBOARD.md").write_text("\n".join(out) + "\n")
    print(f"wrote {HERE / 'SCOREBOARD.md'}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bcast", default=str(TARGET / "release" / "bcast"), help="the bcast binary")
    ap.add_argument("--only", default="", help="comma-separated adapter keys to (re)run")
    ap.add_argument("--saved", action="store_true", help="run nothing; rewrite from saved results")
    ap.add_argument("--update", nargs="+", metavar="DIR",
                    help="with --only: rerun only the cases under DIR and merge them into the saved results")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout-s", type=float, default=60)
    args = ap.parse_args()
    binary = Path(args.bcast).resolve()
    table = adapters(binary)
    only = {k for k in args.only.split(",") if k}
    unknown = only - {k for k, *_ in table}
    if unknown:
        raise SystemExit(f"unknown adapter keys: {sorted(unknown)}")
    if args.update and not only:
        raise SystemExit("--update needs --only")
    if not args.saved:
        for key, name, script, version in table:
            if only and key not in only:
                continue
            v = version()
            if v is None:
                print(f"skipping {name}: not installed", file=sys.stderr)
                for suffix in (".jsonl", ".meta.json"):
                    (RESULTS / f"{key}{suffix}").unlink(missing_ok=True)
                continue
            run_one(key, name, script, v, binary, args.jobs, args.timeout_s, args.update)
    write_board(table)


if __name__ == "__main__":
    main()
