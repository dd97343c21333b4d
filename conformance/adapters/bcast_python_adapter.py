#!/usr/bin/env python3
"""The `bcast` Python package (bindings/python) as a runtime:
`python3 bcast_python_adapter.py {case} {out}`. Exit 3 for every case when `import bcast` fails.

broadcast: bcast.broadcast(x, shape, mode=..., axes_mapping=, axis=, broadcast_axes=);
multi: bcast.broadcast_arrays(*xs); reduce: bcast.reduce_to_input(grad, data_shape, mode=...,
target_shape=, ...); element-wise: bcast.<op>(a, b, auto_broadcast=, axis=) (divide also
pythondiv=); select: bcast.select(cond, then, else_, auto_broadcast=, axis=). IR model cases:
exit 3 (the package reads no IR).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _adapter import EXIT_UNSUPPORTED, Unsupported, main  # noqa: E402

try:
    import bcast
except ImportError as e:
    print(f"unsupported: import bcast failed: {e}", file=sys.stderr)
    sys.exit(EXIT_UNSUPPORTED)

ELTWISE = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "squared_difference",
           "power", "floor_mod", "mod", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "logical_and", "logical_or", "logical_xor"}


def mode_args(case):
    kw = {"mode": case.get("mode")}
    for key in ("axes_mapping", "axis", "broadcast_axes"):
        if key in case.json:
            kw[key] = case.get(key)
    return kw


def eltwise_args(case):
    kw = {"auto_broadcast": case.get("auto_broadcast", "numpy")}
    if "axis" in case.json:
        kw["axis"] = case.get("axis")
    return kw


def run(case):
    xs = case.inputs
    if case.op == "broadcast":
        if case.get("mode") == "multi":
            return list(bcast.broadcast_arrays(*xs))
        return [bcast.broadcast(xs[0], case.get("target_shape"), **mode_args(case))]
    if case.op == "reduce":
        try:
            return [bcast.reduce_to_input(xs[0], case.get("data_shape"),
                                          target_shape=case.get("target_shape"), **mode_args(case))]
        except TypeError:  # an API that takes the target shape from the gradient
            return [bcast.reduce_to_input(xs[0], case.get("data_shape"), **mode_args(case))]
    if case.op == "eltwise":
        op = case.get("eltwise")
        if op not in ELTWISE:
            raise Unsupported(f"eltwise {op}")
        kw = eltwise_args(case)
        if op == "divide":
            kw["pythondiv"] = case.get("pythondiv", True)
        return [getattr(bcast, op)(xs[0], xs[1], **kw)]
    if case.op == "select":
        return [bcast.select(xs[0], xs[1], xs[2], **eltwise_args(case))]
    raise Unsupported(f"op {case.op}")


if __name__ == "__main__":
    main(run)
