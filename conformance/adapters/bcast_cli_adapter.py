#!/usr/bin/env python3
"""The `bcast` binary as a runtime: `python3 bcast_cli_adapter.py {case} {out}`.

Proves the protocol end to end: each case becomes one `bcast run` / `bcast multi` /
`bcast reduce` / `bcast ir` command line (the binary: $BCAST, else target/release/bcast of
this tree, else `bcast` on PATH). The CLI has no element-wise command: eltwise and select
cases exit 3. A refusal by bcast (exit 2) becomes exit 1; bcast killed by a signal kills this
adapter with the same signal.
"""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _adapter import EXIT_REFUSED, EXIT_UNSUPPORTED  # noqa: E402

import json  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def binary():
    if os.environ.get("BCAST"):
        return os.environ["BCAST"]
    built = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "bcast"
    return str(built) if built.is_file() else (shutil.which("bcast") or "bcast")


def ints(values):
    return ",".join(str(v) for v in values)


def command(case_dir: Path, out: Path):
    """(argv, {file bcast writes: file the case wants}) or None when unsupported."""
    bcast = binary()
    if (case_dir / "model.xml").is_file():
        argv = [bcast, "ir", str(case_dir / "model.xml"), "--out-dir", str(out)]
        for f in sorted((case_dir / "inputs").glob("*.npy")):
            argv.append(f"--input={f.stem}={f}")
        return argv, {}
    case = json.loads((case_dir / "case.json").read_text())
    op = case.get("op", "broadcast")
    inputs = [str(case_dir / f) for f in case["inputs"]]
    outputs = case.get("outputs") or [f"out{i}.npy" for i in range(max(len(inputs), 1))]
    if op not in ("broadcast", "reduce"):
        return None
    mode = case.get("mode")
    if op == "broadcast" and mode == "multi":
        argv = [bcast, "multi", "--out-dir", str(out), *inputs]
        return argv, {f"out{i}.npy": name for i, name in enumerate(outputs)}
    args = [f"--mode={mode}", f"--target-shape={ints(case.get('target_shape', []))}"]
    for key, flag in (("axes_mapping", "--axes-mapping"), ("axis", "--axis"),
                      ("broadcast_axes", "--broadcast-axes")):
        if key in case:
            value = case[key]
            args.append(f"{flag}={ints(value) if isinstance(value, list) else value}")
    if op == "reduce":
        args.append(f"--data-shape={ints(case.get('data_shape', []))}")
        return [bcast, "reduce", *args, inputs[0], str(out / outputs[0])], {}
    return [bcast, "run", *args, inputs[0] if inputs else "", str(out / outputs[0])], {}


def main():
    case_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    made = command(case_dir, out)
    if made is None:
        print("unsupported: the bcast CLI has no element-wise command", file=sys.stderr)
        sys.exit(EXIT_UNSUPPORTED)
    argv, renames = made
    rc = subprocess.run(argv).returncode
    if rc < 0:
        signal.signal(-rc, signal.SIG_DFL)
        os.kill(os.getpid(), -rc)
    if rc != 0:
        sys.exit(EXIT_REFUSED)
    for have, want in renames.items():
        if have != want and (out / have).exists():
            (out / have).rename(out / want)
    sys.exit(0)


if __name__ == "__main__":
    main()
