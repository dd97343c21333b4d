#!/usr/bin/env python3
"""numpy as a runtime: `python3 numpy_adapter.py {case} {out}`.

Broadcast modes: each rule restated in numpy (as conformance/generate.py does), then
np.broadcast_to; multi: np.broadcast_arrays; reduce: np.sum over the repeated axes (floats
in float64, cast back; integers in their own dtype, wrapping). Element-wise ops and Select:
numpy's own ufuncs with numpy's own semantics (where numpy departs from the suite, the
scoreboard shows it). IR model cases: not supported (exit 3).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _adapter import Refused, Unsupported, aligned_shape, check_shape, eltwise_operands, main  # noqa: E402


def floor_or_trunc_divide(a, b, pythondiv):
    if a.dtype.kind == "f":
        return np.divide(a, b)
    q = np.floor_divide(a, b)
    if not pythondiv:  # numpy has no truncating integer division: floor, then step back
        q = q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0))).astype(a.dtype)
    return q


UFUNCS = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "maximum": np.maximum, "minimum": np.minimum,
    "squared_difference": lambda a, b: np.square(np.subtract(a, b)),
    "power": np.power, "floor_mod": np.mod, "mod": np.fmod,
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less,
    "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}


def run(case):
    with np.errstate(all="ignore"):
        if case.op == "broadcast":
            if case.get("mode") == "multi":
                if not case.inputs:
                    raise Refused("no inputs")
                return np.broadcast_arrays(*case.inputs)
            (data,) = case.inputs
            aligned, out = aligned_shape(case, data.shape)
            return [np.broadcast_to(data.reshape(aligned), tuple(out))]
        if case.op == "reduce":
            (grad,) = case.inputs
            data_shape = list(case.get("data_shape"))
            check_shape(data_shape, "data_shape")
            aligned, out = aligned_shape(case, data_shape)
            if list(grad.shape) != list(out):
                raise Refused(f"gradient shape {list(grad.shape)} is not the output {out}")
            if grad.dtype.kind not in "iuf":
                raise Refused(f"cannot sum {grad.dtype}")
            axes = tuple(i for i, (a, o) in enumerate(zip(aligned, out)) if a != o)
            if grad.dtype.kind == "f":
                s = grad.sum(axis=axes, dtype=np.float64, keepdims=True).astype(grad.dtype)
            else:
                s = grad.sum(axis=axes, dtype=grad.dtype, keepdims=True)
            return [s.reshape(data_shape)]
        if case.op == "eltwise":
            a, b = eltwise_operands(case)
            op = case.get("eltwise")
            if op == "divide":
                return [floor_or_trunc_divide(a, b, case.get("pythondiv", True))]
            if op not in UFUNCS:
                raise Unsupported(f"eltwise {op}")
            return [np.asarray(UFUNCS[op](a, b))]
        if case.op == "select":
            c, t, e = eltwise_operands(case)
            if c.dtype != np.bool_:
                raise Refused("cond must be bool")
            return [np.where(c, t, e)]
        raise Unsupported(f"op {case.op}")


if __name__ == "__main__":
    main(run)
