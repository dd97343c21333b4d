#!/usr/bin/env python3
"""Writes the gradient-reduce conformance cases: conformance/reduce/<case>/{case.json,in0.npy,out0.npy}.

The gradient of a broadcast sums the output gradient over every output axis the data is
repeated along, and takes the data's shape. Each case here states a broadcast (mode, data
shape, target shape, mode arguments) and a gradient; the expected output is computed by
numpy, independently of bcast:

1. Each mode's rule is written again below (`aligned_shape`): the data shape padded with 1s
   to the output's rank at the axes the data does not occupy. The rule texts are those of
   the planner doc comments (numpy, bidirectional, explicit, PDPD with trailing 1s dropped,
   nGraph broadcast_axes). The generator checks the forward broadcast with
   np.broadcast_to(data.reshape(aligned), output_shape) for every case.
2. The reduction is np.sum over the axes where the aligned shape is 1, keepdims, reshaped to
   the data shape. Floats: summed in float64, then cast to the case's dtype (f64 cases are
   also checked against math.fsum, the exactly rounded sum). Integers: np.sum with
   dtype= the input dtype, which wraps; checked against Python's exact integer sum taken
   modulo 2**bits.
3. Where it runs, OpenVINO's ReduceSum (CPU, keep_dims) is a cross-check: each call runs in a
   subprocess (a crash is recorded, not fatal) and its verdict is recorded in case.json as
   "openvino" ("agrees", "differs: ...", "not run: ..."). OpenVINO never sets the expected
   value.

Floats compare with the case's "rtol" and "atol" (approx's relative_eq: pass if within atol
or within rtol relative); integers compare exactly.

Run from the repository root:  python3 conformance/reduce/generate.py
Needs numpy; openvino is optional (pip install numpy openvino).
"""

import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]


# ----------------------------------------------------------------------------------------
# Each mode's rule, written from the spec: the output shape and the aligned data shape.

class RuleError(Exception):
    pass


def numpy_rule(data, target):
    if len(data) > len(target):
        raise RuleError("target rank below data rank")
    pad = len(target) - len(data)
    for d, t in zip(data, target[pad:]):
        if d != t and d != 1:
            raise RuleError(f"data dim {d} cannot become {t}")
    return list(target), [1] * pad + list(data)


def bidirectional_rule(data, target):
    r = max(len(data), len(target))
    dp = [1] * (r - len(data)) + list(data)
    tp = [1] * (r - len(target)) + list(target)
    out = []
    for d, t in zip(dp, tp):
        if d == t or t == 1:
            out.append(d)
        elif d == 1:
            out.append(t)
        else:
            raise RuleError(f"dims {d} and {t} are incompatible")
    return out, dp


def explicit_rule(data, target, axes_mapping):
    if len(axes_mapping) != len(data):
        raise RuleError("axes_mapping length")
    if any(a < 0 or a >= len(target) for a in axes_mapping):
        raise RuleError("axis out of range")
    if any(b <= a for a, b in zip(axes_mapping, axes_mapping[1:])):
        raise RuleError("axes not increasing")
    aligned = [1] * len(target)
    for d, a in zip(data, axes_mapping):
        if d != target[a] and d != 1:
            raise RuleError("dim mismatch")
        aligned[a] = d
    return list(target), aligned


def pdpd_rule(data, target, axis):
    if axis == -1:
        start = len(target) - len(data)
        if start < 0:
            raise RuleError("axis -1 with data rank above target rank")
    elif axis < -1:
        raise RuleError("axis below -1")
    else:
        start = axis
    fitted = list(data)
    while fitted and fitted[-1] == 1:
        fitted.pop()
    if start > len(target) or len(fitted) > len(target) - start:
        raise RuleError("data runs past the target")
    aligned = [1] * len(target)
    for i, d in enumerate(fitted):
        t = target[start + i]
        if d != t and d != 1:
            raise RuleError("dim mismatch")
        aligned[start + i] = d
    return list(target), aligned


def axes_rule(data, target, broadcast_axes):
    if len(set(broadcast_axes)) != len(broadcast_axes):
        raise RuleError("duplicate axis")
    if any(a < 0 or a >= len(target) for a in broadcast_axes):
        raise RuleError("axis out of range")
    remaining = [t for k, t in enumerate(target) if k not in broadcast_axes]
    if remaining != list(data):
        raise RuleError("target without broadcast_axes is not the data shape")
    aligned = [1 if k in broadcast_axes else t for k, t in enumerate(target)]
    return list(target), aligned


def rule(case):
    mode, data, target = case["mode"], case["data_shape"], case["target_shape"]
    if mode == "numpy":
        return numpy_rule(data, target)
    if mode == "bidirectional":
        return bidirectional_rule(data, target)
    if mode == "explicit":
        return explicit_rule(data, target, case.get("axes_mapping", []))
    if mode == "pdpd":
        return pdpd_rule(data, target, case.get("axis", -1))
    if mode == "axes":
        return axes_rule(data, target, case.get("broadcast_axes", []))
    raise ValueError(mode)


# ----------------------------------------------------------------------------------------
# Values and the expected sums.

def gradient(shape, dtype, rng):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(int(info.min), int(info.max), size=shape, dtype=dt, endpoint=True)
    if dt.kind == "f":
        return (rng.standard_normal(size=shape) * 10).astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind == "U":
        return np.full(shape, "g", dtype="<U1")
    raise ValueError(dtype)


def reduce_axes(aligned, out_shape):
    return tuple(k for k, (a, o) in enumerate(zip(aligned, out_shape)) if a == 1)


def expected(grad, data_shape, aligned, out_shape):
    axes = reduce_axes(aligned, out_shape)
    if grad.dtype.kind in "iu":
        got = np.sum(grad, axis=axes, keepdims=True, dtype=grad.dtype).reshape(data_shape)
        # Cross-check: exact integer sums, wrapped into the dtype.
        bits = grad.dtype.itemsize * 8
        exact = np.asarray(np.sum(grad.astype(object), axis=axes, keepdims=True)).reshape(data_shape)
        for g, e in zip(got.ravel(), np.asarray(exact).ravel()):
            w = int(e) % (1 << bits)
            if grad.dtype.kind == "i" and w >= 1 << (bits - 1):
                w -= 1 << bits
            assert int(g) == w, (g, e)
        return got
    wide = np.sum(grad.astype(np.float64), axis=axes, keepdims=True).reshape(data_shape)
    if grad.dtype == np.float64:
        exact = fsum_reduce(grad, axes, data_shape)
        scale = fsum_reduce(np.abs(grad), axes, data_shape)
        assert np.all(np.abs(wide - exact) <= 1e-13 * np.maximum(scale, 1.0))
    return wide.astype(grad.dtype)


def fsum_reduce(grad, axes, data_shape):
    moved = np.moveaxis(grad, axes, list(range(len(axes)))) if axes else grad
    n = int(np.prod([grad.shape[a] for a in axes])) if axes else 1
    flat = moved.reshape((n, -1)) if grad.size else moved.reshape((n, 0))
    sums = [math.fsum(flat[:, j]) for j in range(flat.shape[1])]
    return np.array(sums, dtype=np.float64).reshape(data_shape)


def tolerances(grad, data_shape, aligned, out_shape):
    """rtol: one unit in the last place of the dtype (the reference and bcast each round
    once). atol: a few units of the largest sum of magnitudes, plus for f64 (where both
    sides accumulate rounding in the dtype itself) the count of terms."""
    eps = float(np.finfo(grad.dtype).eps)
    axes = reduce_axes(aligned, out_shape)
    if grad.size == 0:
        return eps, 0.0
    mags = np.abs(grad.astype(np.float64))
    mags[~np.isfinite(mags)] = 0.0  # an infinite sum compares equal by itself
    sumabs = float(np.max(np.sum(mags, axis=axes))) if axes else float(np.max(mags))
    terms = int(np.prod([out_shape[a] for a in axes])) if axes else 1
    factor = 4.0 + (terms if grad.dtype == np.float64 else 0.0)
    return eps, eps * factor * max(sumabs, 1.0)


# ----------------------------------------------------------------------------------------
# OpenVINO cross-check, one subprocess per case.

def openvino_verdict(case_dir, case):
    try:
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--openvino-worker", case_dir],
            capture_output=True, text=True, timeout=120,
        )
    except Exception as e:  # noqa: BLE001 - any failure is recorded, not fatal
        return f"not run: {e}"
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        return f"not run: exit {proc.returncode} ({last[:160]})"
    return proc.stdout.strip() or "not run: no verdict"


def openvino_worker(case_dir):
    import openvino as ov
    import openvino.opset13 as ops

    with open(os.path.join(case_dir, "case.json")) as f:
        case = json.load(f)
    grad = np.load(os.path.join(case_dir, case["inputs"][0]))
    want = np.load(os.path.join(case_dir, case["outputs"][0]))
    out_shape, aligned = rule(case)
    axes = list(reduce_axes(aligned, out_shape))
    if grad.ndim == 0 or not axes:
        print("not run: nothing to reduce (ReduceSum needs axes)")
        return
    param = ops.parameter(list(grad.shape), ov.Type(grad.dtype))
    node = ops.reduce_sum(param, ops.constant(np.array(axes, dtype=np.int64)), keep_dims=True)
    model = ov.Model([node.output(0)], [param])
    compiled = ov.Core().compile_model(model, "CPU")
    got = compiled([grad])[compiled.output(0)]
    got = np.asarray(got).reshape(case["data_shape"])
    if got.dtype != want.dtype:
        print(f"differs: dtype {got.dtype}, expected {want.dtype}")
        return
    if want.dtype.kind in "iu":
        ok = np.array_equal(got, want)
    else:
        ok = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=case["rtol"], atol=case["atol"])
    if ok:
        print("agrees")
    else:
        diff = np.flatnonzero(got.ravel() != want.ravel())
        i = int(diff[0]) if diff.size else 0
        print(f"differs: element {i} is {got.ravel()[i]}, numpy says {want.ravel()[i]}")


# ----------------------------------------------------------------------------------------
# The cases.

def spec(name, mode, data, target, dtype, **args):
    c = {"name": name, "op": "reduce", "mode": mode, "data_shape": list(data), "target_shape": list(target)}
    c.update(args)
    c["_dtype"] = dtype
    return c


def cases():
    out = []
    rot = iter(list(INTS + FLOATS) * 8)
    d = lambda: next(rot)  # noqa: E731 - each shape case takes the next dtype in turn

    # numpy
    out += [
        spec("numpy_bias_over_batch", "numpy", [3], [2, 3], d()),
        spec("numpy_channel_nchw", "numpy", [4, 1, 1], [2, 4, 3, 3], d()),
        spec("numpy_stretched_middle", "numpy", [2, 1, 3], [2, 5, 3], d()),
        spec("numpy_new_and_stretched", "numpy", [1, 3], [4, 2, 3], d()),
        spec("numpy_scalar_to_matrix", "numpy", [], [3, 4], d()),
        spec("numpy_scalar_identity", "numpy", [], [], d()),
        spec("numpy_one_meets_one", "numpy", [1, 3], [1, 3], d()),
        spec("numpy_identity_rank3", "numpy", [2, 3, 2], [2, 3, 2], d()),
        spec("numpy_narrow_rows_widened", "numpy", [3], [700, 3], d()),
        spec("numpy_long_run", "numpy", [1, 1], [2, 300], d()),
        spec("numpy_rank6", "numpy", [2, 1, 3, 1], [2, 1, 2, 2, 3, 2], d()),
        spec("numpy_zero_size_from_one", "numpy", [1, 3], [0, 3], d()),
        spec("numpy_zero_size_kept", "numpy", [0, 3], [2, 0, 3], d()),
        spec("numpy_zero_size_to_scalar", "numpy", [], [4, 0], d()),
    ]
    # bidirectional
    out += [
        spec("bidirectional_ir_example", "bidirectional", [3, 1], [2, 1, 6], d()),
        spec("bidirectional_channel", "bidirectional", [16, 1, 1], [1, 1, 5, 5], d()),
        spec("bidirectional_target_ones_keep_data", "bidirectional", [1, 3, 1], [3, 1], d()),
        spec("bidirectional_data_above_target", "bidirectional", [2, 3], [3], d()),
        spec("bidirectional_one_against_zero", "bidirectional", [1], [0], d()),
        spec("bidirectional_both_stretch", "bidirectional", [4, 1], [1, 5], d()),
    ]
    # explicit
    out += [
        spec("explicit_channel_nchw", "explicit", [3], [2, 3, 4, 4], d(), axes_mapping=[1]),
        spec("explicit_stretched_one", "explicit", [3, 1], [2, 3, 5], d(), axes_mapping=[1, 2]),
        spec("explicit_outer_axes", "explicit", [2, 4], [2, 3, 4], d(), axes_mapping=[0, 2]),
        spec("explicit_scalar", "explicit", [], [2, 2], d(), axes_mapping=[]),
        spec("explicit_nhwc_matrix", "explicit", [5, 5], [1, 5, 5, 16], d(), axes_mapping=[1, 2]),
    ]
    # pdpd
    out += [
        spec("pdpd_eval_example", "pdpd", [3, 1], [2, 3, 6], d(), axis=1),
        spec("pdpd_trailing_one_dropped", "pdpd", [5, 1], [2, 3, 4, 5], d(), axis=3),
        spec("pdpd_minus_one", "pdpd", [4, 5], [2, 3, 4, 5], d(), axis=-1),
        spec("pdpd_leading_one", "pdpd", [1, 3], [2, 3, 4, 5], d(), axis=0),
        spec("pdpd_scalar", "pdpd", [], [2, 3], d(), axis=-1),
        spec("pdpd_all_ones_at_end", "pdpd", [1, 1], [2, 3, 4, 5], d(), axis=4),
    ]
    # nGraph axes
    out += [
        spec("axes_ngraph_example_rows", "axes", [3], [2, 3], d(), broadcast_axes=[0]),
        spec("axes_ngraph_example_cols", "axes", [3], [3, 2], d(), broadcast_axes=[1]),
        spec("axes_unordered", "axes", [4], [2, 3, 4], d(), broadcast_axes=[1, 0]),
        spec("axes_zero_size_new_axis", "axes", [2, 4], [2, 0, 4], d(), broadcast_axes=[1]),
        spec("axes_none_new", "axes", [2, 2], [2, 2], d(), broadcast_axes=[]),
    ]
    # Every numeric dtype on two shapes (rows added; planes summed).
    for dt in INTS + FLOATS:
        out.append(spec(f"dtype_{dt}_rows", "numpy", [5], [6, 5], dt))
        out.append(spec(f"dtype_{dt}_planes", "explicit", [2], [3, 2, 4, 4], dt, axes_mapping=[1]))
    # Small integers, where no sum overflows: here OpenVINO's integer ReduceSum can agree
    # (on wide sums it saturates or goes through f32 where numpy wraps).
    for dt in INTS:
        out.append(spec(f"dtype_{dt}_small_values", "numpy", [1, 4], [3, 5, 4], dt, _special="small"))
    # Infinities survive (one per group, so no inf - inf).
    out.append(spec("float32_with_infinity", "numpy", [3], [4, 3], "float32", _special="inf"))
    # Rejections.
    out += [
        spec("error_bool_gradient", "numpy", [3], [2, 3], "bool", error=True),
        spec("error_string_gradient", "numpy", [3], [2, 3], "str", error=True),
        spec("error_grad_shape_is_not_the_output", "numpy", [3], [2, 3], "float32", error=True, _grad_shape=[2, 4]),
        spec("error_numpy_dim_mismatch", "numpy", [3], [2, 4], "float32", error=True, _grad_shape=[2, 4]),
        spec("error_explicit_not_increasing", "explicit", [3, 3], [3, 3], "int32", error=True, axes_mapping=[1, 0], _grad_shape=[3, 3]),
        spec("error_pdpd_axis_past_end", "pdpd", [5], [2, 3, 4, 5], "float64", error=True, axis=4, _grad_shape=[2, 3, 4, 5]),
        spec("error_axes_shape_mismatch", "axes", [3], [2, 4], "int64", error=True, broadcast_axes=[0], _grad_shape=[2, 4]),
        spec("error_bidirectional_incompatible", "bidirectional", [4, 3], [8, 3], "uint8", error=True, _grad_shape=[8, 3]),
    ]
    return out


def dump(c, path):
    """case.json: one key per line, each value compact."""
    body = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in c.items())
    with open(path, "w") as f:
        f.write("{\n" + body + "\n}\n")


def write_case(c, rng, with_openvino):
    c = dict(c)
    dtype = c.pop("_dtype")
    special = c.pop("_special", None)
    grad_shape = c.pop("_grad_shape", None)
    case_dir = os.path.join(HERE, c["name"])
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    if c.get("error"):
        if grad_shape is None:
            grad_shape, _ = rule(c)
        grad = gradient(grad_shape, dtype, rng)
        c["inputs"] = ["in0.npy"]
        c["note"] = "must be rejected"
        np.save(os.path.join(case_dir, "in0.npy"), grad)
        dump(c, os.path.join(case_dir, "case.json"))
        return c["name"], "error case"
    out_shape, aligned = rule(c)
    # The forward broadcast this reduce is the gradient of: data placed by `aligned`.
    probe = np.arange(int(np.prod(c["data_shape"], dtype=np.int64))).reshape(c["data_shape"])
    np.broadcast_to(probe.reshape(aligned), out_shape)
    grad = gradient(out_shape, dtype, rng)
    if special == "small":
        grad = rng.integers(0, 4, size=out_shape).astype(grad.dtype)
    if special == "inf":
        grad[1, 0] = np.inf
        grad[2, 1] = -np.inf
    want = expected(grad, c["data_shape"], aligned, out_shape)
    c["inputs"] = ["in0.npy"]
    c["outputs"] = ["out0.npy"]
    if grad.dtype.kind == "f":
        c["rtol"], c["atol"] = tolerances(grad, c["data_shape"], aligned, out_shape)
    c["source"] = "numpy: np.sum over the broadcast axes (float64, then cast; ints wrap in the dtype)"
    np.save(os.path.join(case_dir, "in0.npy"), grad)
    np.save(os.path.join(case_dir, "out0.npy"), want)
    dump(c, os.path.join(case_dir, "case.json"))
    verdict = openvino_verdict(case_dir, c) if with_openvino else "not run: openvino not installed"
    c["openvino"] = verdict
    dump(c, os.path.join(case_dir, "case.json"))
    return c["name"], verdict


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--openvino-worker":
        openvino_worker(sys.argv[2])
        return
    try:
        import openvino  # noqa: F401
        with_openvino = True
    except ImportError:
        with_openvino = False
    for entry in os.listdir(HERE):
        if os.path.isfile(os.path.join(HERE, entry, "case.json")):
            shutil.rmtree(os.path.join(HERE, entry))
    rng = np.random.default_rng(20260419)
    for c in cases():
        name, verdict = write_case(c, rng, with_openvino)
        print(f"{name}: {verdict}")


if __name__ == "__main__":
    main()
