#!/usr/bin/env python3
"""Writes conformance/eltwise/paddle/: PDPD element-wise cases checked against Paddle itself.

    python3 -m pip install paddlepaddle            # 3.3.1 when written
    python3 conformance/generate_paddle.py         # about a minute; rewrites eltwise/paddle/

Each case runs one of Paddle's legacy `elementwise_*` kernels with its `axis` attribute
(conformance/paddleworker.py, in a worker process: Paddle aborts on some bad axes) and, beside
it, OpenVINO's PDPD rule (broadcast-rules.rst) restated in numpy with OpenVINO's op semantics
(generate_eltwise.py's broadcast_inputs and np_eltwise). The cases use the existing case format
with "source": "paddle", so today's conformance runner runs them.

- The rule decides acceptance. Where Paddle departs from it (it broadcasts A onto a
  higher-rank B; it accepts A dims of 1 against B dims), the case follows OpenVINO's rule and
  `note` records Paddle's answer; where Paddle refuses what the rule accepts, the expected
  value is numpy's ("source": "numpy") and `note` records the refusal.
- Where both accept, Paddle's output is the expected one when it equals the numpy restatement
  bit for bit (1 ulp for float Power); a value departure is recorded and numpy's value kept.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "eltwise" / "paddle"
sys.path.insert(0, str(HERE))
from generate_eltwise import (  # noqa: E402
    NP, Rejected, broadcast_inputs, fmt, np_eltwise, same, shape_str, sname, vals, within_ulp,
)
from ovworker import Worker  # noqa: E402

# Paddle kernel -> (bcast op, pythondiv for integer inputs, dtypes tried). The dtypes Paddle's
# CPU kernel does not register are found by a probe and left out (printed).
ALL = ["f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8"]
KERNELS = {
    "elementwise_add": ("add", None, ALL),
    "elementwise_sub": ("subtract", None, ALL),
    "elementwise_mul": ("multiply", None, ALL),
    "elementwise_div": ("divide", False, ALL),       # integers truncate
    "elementwise_floordiv": ("divide", True, ["i8", "i16", "i32", "i64", "u8"]),  # integers floor
    "elementwise_max": ("maximum", None, ALL),
    "elementwise_min": ("minimum", None, ALL),
    "elementwise_mod": ("floor_mod", None, ["i8", "i16", "i32", "i64", "u8"]),  # Python's %
    "elementwise_pow": ("power", None, ALL),
}

A = (2, 3, 4, 5)
ACCEPTED = [  # (A, B, axis): OpenVINO's PDPD rule accepts
    (A, (3, 4), 1), (A, (4, 5), -1), (A, (5,), -1), (A, (), -1), (A, A, -1), (A, (3, 1), 1),
    (A, (1, 3), 0), (A, (2,), 0), (A, (4, 1), 2), (A, (4, 1), -1), (A, (1,), 3), (A, (3, 4, 5), 1),
    (A, (5, 1), 3), (A, (5, 1, 1), 3), (A, (1,), 4), (A, (), 4),
    ((3,), (3,), 0), ((2, 3), (3,), 1), ((6,), (1,), 0), ((2, 1, 4, 1, 3, 2), (4, 1, 3), 2),
    ((0, 3), (3,), 1), ((2, 3, 4), (1, 3, 1), 0), ((), (), -1), ((2, 0, 3), (0,), 1),
]
REJECTED = [  # (A, B, axis, why)
    ((3,), (2, 3), -1, "rank(B) > rank(A): A would be broadcast onto B"),
    ((3, 4), (2, 3, 4), -1, "rank(B) > rank(A): A would be broadcast onto B"),
    ((4,), (3, 4), 0, "rank(B) > rank(A)"),
    (A, (3,), -1, "axis -1 puts B at the last axis: 3 against 5"),
    (A, (3, 1), -1, "axis -1 = rank(A) - rank(B) = 2 (B's own rank): 3 against 4"),
    (A, (4, 5), 3, "B from axis 3 runs past A"),
    (A, (4, 5), -2, "axis < -1"),
    (A, (5,), 4, "B from axis 4 runs past A"),
    ((1, 4), (3,), 0, "A dim 1 against B dim 3: only B stretches"),
    ((2, 1, 3), (2, 3), 0, "A dim 1 against B dim 3: only B stretches"),
    (A, (3, 5), 1, "B dim 5 against A dim 4"),
]


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    pd = Worker(str(HERE / "paddleworker.py"))
    pd.TIMEOUT_S = 120  # the first call imports Paddle
    pd.call("ref", "elementwise_add", [np.zeros(1, np.float32)] * 2, {"axis": -1})
    pd.TIMEOUT_S = 30
    count, departures, names = 0, [], set()
    k = 0
    try:
        for kernel, (op, pythondiv_int, dtypes) in KERNELS.items():
            for dt in dtypes:
                probe = pd.call("ref", kernel, [vals(dt, (2,), op, 0), vals(dt, (2,), op, 1)], {"axis": -1})
                if probe[0] != "ok" and "no kernels" in probe[1]:
                    print(f"no Paddle CPU kernel: {kernel} on {dt}")
                    continue
                configs = [ACCEPTED[(k + j) % len(ACCEPTED)] + (None,) for j in range(3)]
                configs.append(REJECTED[k % len(REJECTED)])
                k += 3
                for a_s, b_s, axis, why in configs:
                    a = vals(dt, a_s, op, 0, salt=k)
                    b = vals(dt, b_s, op, 1, salt=k + 1)
                    if op == "power" and dt[0] == "i":
                        b = np.abs(b).astype(NP[dt])  # Paddle: negative integer powers raise
                    pythondiv = pythondiv_int if dt[0] in "iu" else None
                    name = (f"{kernel[12:]}_{dt}_{sname(a_s)}_with_{sname(b_s)}_axis_{axis}").replace("-", "m")
                    if name in names:
                        continue
                    names.add(name)
                    written = write_case(pd, name, kernel, op, pythondiv, a, b, axis, why)
                    if written is None:
                        print(f"no Paddle CPU kernel for {name} (left out)")
                        continue
                    count += 1
                    departures += written
    finally:
        pd.close()
    print(f"paddle: {count} cases; Paddle calls {pd.calls}, worker crashes survived {pd.crashes}")
    for d in departures:
        print("  " + d)
    (HERE / "eltwise" / "departures_paddle.json").write_text(
        json.dumps({"departures": departures, "count": count}, indent=1) + "\n")


def write_case(pd, name, kernel, op, pythondiv, a, b, axis, why):
    notes, departures = [], []
    if why:
        notes.append(f"PDPD: {why}")
    want, bx, rejected = None, None, None
    try:
        bx = broadcast_inputs([a, b], "pdpd", axis)
        want = np_eltwise(op, bx[0], bx[1], True if pythondiv is None else pythondiv)
    except Rejected as r:
        rejected = str(r)
    assert (rejected is not None) == (why is not None), (name, rejected)
    got = pd.call("ref", kernel, [np.array(a), np.array(b)], {"axis": axis})
    if got[0] == "rejected" and "no kernels" in got[1]:
        return None  # Paddle's kernel registry, not its broadcasting
    ulp = op == "power" and a.dtype.kind == "f"
    source, expected = "paddle", None
    if rejected is not None:
        notes.insert(0, f"rejected: {rejected}")
        if got[0] == "ok":
            source = "spec"
            vals_ = f", values {[fmt(v) for v in got[1].ravel()[:6]]}" if got[1].size else ""
            notes.append(f"Paddle accepts it (output {shape_str(got[1].shape)}{vals_})")
            departures.append(f"{name}: Paddle accepts ({shape_str(got[1].shape)}) what OpenVINO's rule rejects ({rejected})")
        else:
            notes.append(f"Paddle {got[0]}: {got[1]}")
    elif got[0] != "ok":
        expected, source = want, "numpy"
        notes.append(f"Paddle {'refuses' if got[0] == 'rejected' else 'crashes'} ({got[1]}) what OpenVINO's rule accepts; numpy")
        departures.append(f"{name}: Paddle {got[0]} ({got[1][:120]}) where OpenVINO's rule accepts")
    else:
        g = np.asarray(got[1])
        if g.shape != want.shape:
            expected, source = want, "numpy"
            notes.append(f"Paddle's output shape {shape_str(g.shape)} instead of {shape_str(want.shape)}; numpy")
            departures.append(f"{name}: Paddle's shape {shape_str(g.shape)} vs {shape_str(want.shape)}")
        elif same(g, want) or (ulp and within_ulp(g, want)):
            expected = g.astype(want.dtype)
            if not same(g, want):
                notes.append("numpy's Power differs by 1 ulp somewhere")
        else:
            expected, source = want, "numpy"
            bad = np.flatnonzero(g.reshape(-1).view(np.uint8 if g.itemsize == 1 else f"u{g.itemsize}")
                                 != want.reshape(-1).view(np.uint8 if g.itemsize == 1 else f"u{g.itemsize}"))
            i = bad[0]
            d = (f"{len(bad)} of {g.size} elements, first: f({fmt(bx[0].ravel()[i])}, {fmt(bx[1].ravel()[i])}) = "
                 f"{fmt(g.ravel()[i])}, OpenVINO's {op} {fmt(want.ravel()[i])}")
            notes.append(f"Paddle's values differ (op semantics, not broadcasting): {d}; numpy")
            departures.append(f"{name}: values: {d}")
    folder = OUT / name
    folder.mkdir()
    c = {"name": name, "op": "eltwise", "eltwise": op, "auto_broadcast": "pdpd", "axis": axis}
    if pythondiv is not None:
        c["pythondiv"] = pythondiv
    c["inputs"] = ["in0.npy", "in1.npy"]
    np.save(folder / "in0.npy", np.array(a, order="C", copy=True), allow_pickle=False)
    np.save(folder / "in1.npy", np.array(b, order="C", copy=True), allow_pickle=False)
    if expected is None:
        c["error"] = True
    else:
        np.save(folder / "out0.npy", np.array(expected, order="C", copy=True), allow_pickle=False)
        c["outputs"] = ["out0.npy"]
        if ulp:
            c["ulp"] = 1
    c["source"] = source
    c["note"] = " | ".join([f"Paddle kernel {kernel}"] + notes)
    (folder / "case.json").write_text(json.dumps(c) + "\n", encoding="utf-8")
    return departures


if __name__ == "__main__":
    main()
