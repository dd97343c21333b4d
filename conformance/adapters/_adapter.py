"""What every adapter here shares: reading a case, writing its outputs, the exit codes.

The protocol (conformance/README.md, "Running the suite against any runtime"):
`ADAPTER {case} {out}`; read case.json and the npy inputs in {case}; write the outputs as npy
into {out} and exit 0; exit 3 when the runtime cannot run this kind of case; exit 1 (any
code but 0 and 3) when the runtime refuses the inputs.

An adapter module defines `run(case) -> list of arrays` (one per "outputs" entry) for op
cases and, optionally, `run_ir(case) -> {Result name: array}` for IR model cases; it raises
`Unsupported` for what its runtime cannot do, and any other exception is a refusal.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

import numpy as np

EXIT_REFUSED = 1
EXIT_UNSUPPORTED = 3


class Unsupported(Exception):
    """The runtime has no way to run this case (exit 3: skipped, not failed)."""


class Refused(Exception):
    """The runtime (or the rule the adapter states) refuses the inputs."""


class Case:
    def __init__(self, folder: Path):
        self.dir = folder
        self.is_ir = (folder / "model.xml").is_file()
        text = (folder / "case.json").read_text() if (folder / "case.json").is_file() else "{}"
        self.json = json.loads(text)
        if self.is_ir:
            self.op = "ir"
            self.inputs = {p.stem: np.load(p, allow_pickle=False)
                           for p in sorted((folder / "inputs").glob("*.npy"))}
        else:
            self.op = self.json.get("op", "broadcast")
            self.inputs = [np.load(folder / f, allow_pickle=False) for f in self.json["inputs"]]

    def get(self, key, default=None):
        return self.json.get(key, default)


def main(run, run_ir=None):
    """`python3 ADAPTER.py {case} {out}`."""
    if len(sys.argv) != 3:
        print(f"usage: {sys.argv[0]} CASE_DIR OUT_DIR", file=sys.stderr)
        sys.exit(2)
    case = Case(Path(sys.argv[1]))
    out = Path(sys.argv[2])
    try:
        if case.is_ir:
            if run_ir is None:
                raise Unsupported("IR model cases are not supported")
            for name, arr in run_ir(case).items():
                np.save(out / f"{name}.npy", np.asarray(arr), allow_pickle=False)
        else:
            arrays = run(case)
            names = case.json["outputs"] if "outputs" in case.json else [
                f"out{i}.npy" for i in range(len(arrays))]
            for name, arr in zip(names, arrays):
                np.save(out / name, np.ascontiguousarray(arr) if np.ndim(arr) else np.asarray(arr),
                        allow_pickle=False)
    except Unsupported as e:
        print(f"unsupported: {e}", file=sys.stderr)
        sys.exit(EXIT_UNSUPPORTED)
    except Exception as e:  # noqa: BLE001 - the runtime's refusal, whatever its type
        traceback.print_exc(limit=2, file=sys.stderr)
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        print(f"refused: {type(e).__name__}: {lines[-1][:300] if lines else ''}", file=sys.stderr)
        sys.exit(EXIT_REFUSED)
    sys.exit(0)


# ---------------------------------------------------------------------------------------
# Shape rules, restated in numpy (as conformance/generate.py and generate_eltwise.py do):
# each returns the data's shape aligned to the output's rank (1 on the new axes).
# ---------------------------------------------------------------------------------------

def check_shape(values, what):
    for i, v in enumerate(values):
        if v < 0:
            raise Refused(f"{what} value {v} at index {i} is negative")


def aligned_shape(case, data_shape):
    """(aligned data shape, output shape) of a single-input broadcast case."""
    mode = case.get("mode")
    target = list(case.get("target_shape"))
    check_shape(target, "target_shape")
    n = 1
    for v in target:
        n *= v if v else 1
    if n > 2 ** 63 - 1:
        raise Refused(f"shape {target} has too many elements")
    data_shape = list(data_shape)
    if mode == "numpy":
        out = list(np.broadcast_shapes(tuple(data_shape), tuple(target)))
        if out != target:
            raise Refused(f"numpy: {data_shape} does not broadcast to {target}")
        return [1] * (len(target) - len(data_shape)) + data_shape, target
    if mode == "bidirectional":
        out = list(np.broadcast_shapes(tuple(data_shape), tuple(target)))
        return [1] * (len(out) - len(data_shape)) + data_shape, out
    if mode in ("explicit", "none"):
        axes = list(case.get("axes_mapping"))
        check_shape(axes, "axes_mapping")
        if len(axes) != len(data_shape):
            raise Refused("axes_mapping length differs from the data rank")
        aligned = [1] * len(target)
        for i, (d, a) in enumerate(zip(data_shape, axes)):
            if a >= len(target) or (i and a <= axes[i - 1]):
                raise Refused(f"axes_mapping {axes} out of range or not increasing")
            if d not in (1, target[a]):
                raise Refused(f"data dim {d} cannot become {target[a]}")
            aligned[a] = d
        return aligned, target
    if mode == "pdpd":
        axis = case.get("axis", -1)
        start = len(target) - len(data_shape) if axis == -1 else axis
        if axis < -1 or start < 0:
            raise Refused(f"pdpd: bad axis {axis}")
        fitted = list(data_shape)
        while fitted and fitted[-1] == 1:
            fitted.pop()
        if start > len(target) or len(fitted) > len(target) - start:
            raise Refused("pdpd: the data runs past the target's end")
        aligned = [1] * len(target)
        for i, d in enumerate(fitted):
            if d not in (1, target[start + i]):
                raise Refused(f"pdpd: data dim {d} cannot become {target[start + i]}")
            aligned[start + i] = d
        return aligned, target
    if mode == "axes":
        baxes = list(case.get("broadcast_axes"))
        check_shape(baxes, "broadcast_axes")
        if len(set(baxes)) != len(baxes) or any(a >= len(target) for a in baxes):
            raise Refused(f"broadcast_axes {baxes} repeat an axis or are out of range")
        rest = [t for i, t in enumerate(target) if i not in baxes]
        if rest != data_shape:
            raise Refused(f"target without broadcast_axes is {rest}, not {data_shape}")
        return [1 if i in baxes else t for i, t in enumerate(target)], target
    raise Unsupported(f"mode {mode}")


def pdpd_align(a_shape, b_shape, axis):
    """Element-wise PDPD (broadcast-rules.rst): B's shape aligned to A's rank."""
    if len(b_shape) > len(a_shape):
        raise Refused(f"PDPD: rank(B) {len(b_shape)} > rank(A) {len(a_shape)}")
    if axis < -1:
        raise Refused(f"PDPD: axis {axis} < -1")
    start = len(a_shape) - len(b_shape) if axis == -1 else axis
    fitted = list(b_shape)
    while fitted and fitted[-1] == 1:
        fitted.pop()
    if start + len(fitted) > len(a_shape):
        raise Refused("PDPD: B runs past A's rank")
    aligned = [1] * len(a_shape)
    for i, d in enumerate(fitted):
        if d not in (1, a_shape[start + i]):
            raise Refused(f"PDPD: B dim {d} cannot become A dim {a_shape[start + i]}")
        aligned[start + i] = d
    return tuple(aligned)


def eltwise_operands(case):
    """The inputs of an eltwise/select case, broadcast to the output shape by the case's
    auto_broadcast (none, numpy, pdpd) as numpy arrays."""
    arrays = case.inputs
    ab = case.get("auto_broadcast", "numpy")
    axis = case.get("axis", -1)
    shapes = [a.shape for a in arrays]
    if ab == "none":
        if any(s != shapes[0] for s in shapes):
            raise Refused(f"none: shapes differ {shapes}")
        return list(arrays)
    if ab == "numpy":
        out = np.broadcast_shapes(*shapes)
        return [np.broadcast_to(a, out) for a in arrays]
    if ab == "pdpd":
        if case.op == "select":  # the output is then's shape; cond and else go onto it
            c, t, e = arrays
            return [np.broadcast_to(c.reshape(pdpd_align(t.shape, c.shape, axis)), t.shape), t,
                    np.broadcast_to(e.reshape(pdpd_align(t.shape, e.shape, axis)), t.shape)]
        a, b = arrays
        return [a, np.broadcast_to(b.reshape(pdpd_align(a.shape, b.shape, axis)), a.shape)]
    raise Unsupported(f"auto_broadcast {ab}")
