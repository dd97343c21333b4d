#!/usr/bin/env python3
"""Runs the built `bcast` on every valid fixture and checks its outputs with numpy.

    cargo build && python3 tests/data/check_cli.py [PATH/TO/bcast]

Not part of `cargo test` (which never needs Python): a second, independent check that the
files bcast writes load in numpy, are C-order little-endian in the input's dtype, and hold
what numpy's own broadcasting gives, for run in every mode and for multi.
Prints one line per failure and a summary; exits 1 if anything failed.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE / "npy"


def default_binary():
    target = os.environ.get("CARGO_TARGET_DIR", str(HERE.parent.parent / "target"))
    return pathlib.Path(target) / "debug" / "bcast"


def same(got, want):
    """Same shape, same (little-endian) dtype, same bits; strings by value."""
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if want.dtype.kind == "U":
        if got.dtype.kind != "U":
            return f"dtype {got.dtype} is not unicode"
        return None if got.tolist() == want.tolist() else "strings differ"
    want_dtype = want.dtype.newbyteorder("<") if want.dtype.byteorder == ">" else want.dtype
    if got.dtype.str != want_dtype.str:
        return f"dtype {got.dtype.str} != {want_dtype.str}"
    w = np.ascontiguousarray(want).astype(want_dtype)
    if got.size and not np.array_equal(got.view(f"u{got.itemsize}"), w.view(f"u{w.itemsize}")):
        return "values differ"
    return None


def header_ok(path):
    with open(path, "rb") as f:
        major, _ = np.lib.format.read_magic(f)
        if major == 1:
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    if fortran:
        return "fortran_order is True"
    if dtype.byteorder == ">":
        return f"big-endian dtype {dtype.str}"
    return None


def stretch(shape):
    """A target for numpy mode: a new leading 2, and every 1 stretched to 3."""
    return (2,) + tuple(3 if d == 1 else d for d in shape)


def cases(a):
    """(bcast flags, numpy's expected array) for one input, one per mode."""
    s = a.shape
    r = len(s)
    inner = (1,) + s + (1,)
    t_wrap = (2,) + s + (3,)
    shape_list = lambda t: ",".join(map(str, t))  # noqa: E731
    yield (["--mode", "numpy", "--target-shape", shape_list(stretch(s))],
           np.broadcast_to(a, stretch(s)))
    bt = (2, 1) + tuple(1 for _ in s)
    yield (["--mode", "bidirectional", "--target-shape", shape_list(bt)],
           np.broadcast_to(a, np.broadcast_shapes(a.shape, bt)))
    yield (["--mode", "explicit", "--target-shape", shape_list(t_wrap),
            "--axes-mapping", shape_list(range(1, r + 1))],
           np.broadcast_to(a.reshape(inner), t_wrap))
    yield (["--mode", "none", "--target-shape", shape_list(t_wrap),
            "--axes-mapping", shape_list(range(1, r + 1))],
           np.broadcast_to(a.reshape(inner), t_wrap))
    yield (["--mode", "pdpd", "--target-shape", shape_list(t_wrap), "--axis", "1"],
           np.broadcast_to(a.reshape(inner), t_wrap))
    yield (["--mode", "axes", "--target-shape", shape_list(t_wrap),
            "--broadcast-axes", shape_list([0, r + 1])],
           np.broadcast_to(a.reshape(inner), t_wrap))


def main():
    binary = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default_binary()
    expected = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
    failures, checks = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "out.npy"
        for name in expected["valid"]:
            a = np.load(FIXTURES / name)
            for flags, want in cases(a):
                checks += 1
                cmd = [str(binary), "run", *flags, str(FIXTURES / name), str(out)]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    failures.append(f"{name} {flags}: exit {proc.returncode}: {proc.stderr.strip()}")
                    continue
                why = header_ok(out) or same(np.load(out), want)
                if why:
                    failures.append(f"{name} {flags}: {why}")
        # multi: every pair of fixtures with one dtype and compatible shapes.
        arrays = {n: np.load(FIXTURES / n) for n in expected["valid"]}
        names = sorted(arrays)
        for i, x in enumerate(names):
            for y in names[i + 1:]:
                a, b = arrays[x], arrays[y]
                if a.dtype.newbyteorder("<").kind != b.dtype.kind or a.itemsize != b.itemsize:
                    continue
                try:
                    want = np.broadcast_arrays(a, b)
                except ValueError:
                    continue
                checks += 1
                proc = subprocess.run(
                    [str(binary), "multi", str(FIXTURES / x), str(FIXTURES / y), "--out-dir", tmp],
                    capture_output=True, text=True)
                if proc.returncode != 0:
                    failures.append(f"multi {x} {y}: exit {proc.returncode}: {proc.stderr.strip()}")
                    continue
                for k in range(2):
                    path = pathlib.Path(tmp) / f"out{k}.npy"
                    why = header_ok(path) or same(np.load(path), want[k])
                    if why:
                        failures.append(f"multi {x} {y} out{k}: {why}")
    for f in failures:
        print("FAIL", f)
    print(f"{checks - len(failures)}/{checks} checks passed (numpy {np.__version__})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
