#!/usr/bin/env python3
"""Writes the conformance cases of the ops added after the first nineteen (see
conformance/eltwise/README.md, "Groups of the later ops"): variadic sum / mean / max / min,
bitwise and / or / xor, the shifts, both PRelus, FakeQuantize and ONNX's Mod, Div and Pow.

    python3 -m pip install -r conformance/eltwise/requirements.txt
    python3 conformance/generate_ops.py        # about a minute; rewrites its own groups only

Expected outputs never come from bcast:

- OpenVINO's ops (bitwise_*, bitwise_left_shift / bitwise_right_shift, prelu, fake_quantize):
  OpenVINO's reference implementation by constant folding (conformance/ovworker.py, the same
  worker as generate_eltwise.py), with the CPU plugin run beside it (never an oracle). Where the
  reference has no evaluate for the op/type pair, numpy restating the reference's formula gives
  the value ("source": "numpy"); every case is also computed that way and a disagreement with
  the reference is recorded.
- ONNX's ops (sum, mean, max, min, bit_shift, onnx_prelu, onnx_mod, onnx_div, onnx_pow):
  onnx.reference.ReferenceEvaluator on a one-node model ("source": "onnx-reference"), with ONNX
  Runtime run beside it (in a forked child: integer division traps) and recorded where it
  departs.
- Whether a case is an error follows the op's shape rule restated below (the spec), not what a
  runtime happens to accept; what the runtimes did then goes into `note`.

Departures land in conformance/eltwise/departures_ops.json and in the README's generated table.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "eltwise"
sys.path.insert(0, str(HERE))
from generate_eltwise import (  # noqa: E402
    NP, NUMERIC, Rejected, broadcast_inputs, dtname, fmt, same, shape_str, sname, vals, within_ulp,
)
from ovworker import Worker  # noqa: E402

GROUPS = ["variadic", "bitwise", "shift", "prelu", "fake_quantize", "onnx_mod", "onnx_div", "onnx_pow"]
INTS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOATS = ["f16", "f32", "f64"]
ONNX_OPSET = 28   # the reference's opset: BitShift 28 defines signed types and every shift amount
ORT_OPSET = 21    # ONNX Runtime's kernels (BitShift stays at 11 there: unsigned only)

# ---------------------------------------------------------------------------------------
# ONNX: the reference evaluator, and ONNX Runtime in a forked child
# ---------------------------------------------------------------------------------------

ONNX_NAMES = {"sum": "Sum", "mean": "Mean", "max": "Max", "min": "Min", "bit_shift": "BitShift",
              "onnx_prelu": "PRelu", "onnx_mod": "Mod", "onnx_div": "Div", "onnx_pow": "Pow",
              "bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor"}


def onnx_model(op, arrays, attrs, opset):
    from onnx import helper
    from onnx.helper import np_dtype_to_tensor_dtype
    names = [f"in{i}" for i in range(len(arrays))]
    node = helper.make_node(ONNX_NAMES[op], names, ["out"], **attrs)
    ins = [helper.make_tensor_value_info(n, np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
           for n, a in zip(names, arrays)]
    out = helper.make_tensor_value_info("out", np_dtype_to_tensor_dtype(arrays[0].dtype), None)
    model = helper.make_model(helper.make_graph([node], "case", ins, [out]),
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def onnx_reference(op, arrays, attrs):
    from onnx.reference import ReferenceEvaluator
    try:
        sess = ReferenceEvaluator(onnx_model(op, arrays, attrs, ONNX_OPSET))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (res,) = sess.run(None, {f"in{i}": a for i, a in enumerate(arrays)})
        return ("ok", np.asarray(res))
    except Exception as e:  # noqa: BLE001
        return ("rejected", f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")


def _ort_run(op, arrays, attrs):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 4
    sess = ort.InferenceSession(onnx_model(op, arrays, attrs, ORT_OPSET).SerializeToString(), so,
                                providers=["CPUExecutionProvider"])
    (res,) = sess.run(None, {f"in{i}": a for i, a in enumerate(arrays)})
    return np.asarray(res)


def onnxruntime(op, arrays, attrs):
    """ONNX Runtime in a forked child, so that a trap (SIGFPE on integer division) is an answer."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = ("ok", _ort_run(op, arrays, attrs))
        except Exception as e:  # noqa: BLE001
            lines = [ln for ln in str(e).splitlines() if ln.strip()]
            res = ("rejected", (lines[-1] if lines else type(e).__name__)[:200])
        with os.fdopen(w, "wb") as f:
            f.write(pickle.dumps(res))
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        blob = f.read()
    _, status = os.waitpid(pid, 0)
    if blob:
        return pickle.loads(blob)
    import signal
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return ("crashed", signal.Signals(sig).name if sig else f"exit {os.WEXITSTATUS(status)}")


# ---------------------------------------------------------------------------------------
# The shape rules restated (independently of bcast): None = rejected
# ---------------------------------------------------------------------------------------

def numpy_shape(shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError as e:
        raise Rejected(f"numpy: {e}") from None


def unidirectional(x_shape, s_shape):
    """ONNX unidirectional: s broadcasts onto x; the output is x's shape."""
    out = numpy_shape([x_shape, s_shape])
    if out != tuple(x_shape):
        raise Rejected(f"unidirectional: {shape_str(s_shape)} cannot broadcast onto {shape_str(x_shape)}")
    return out


def prelu_slope(x_shape, s_shape):
    """OpenVINO PRelu-1: a 1-D slope whose length is C = x.shape[1] (rank(x) >= 2) goes on axis 1;
    otherwise the slope broadcasts onto x numpy-style (the output is x's shape)."""
    if len(s_shape) == 1 and len(x_shape) >= 2 and s_shape[0] == x_shape[1]:
        aligned = [1] * len(x_shape)
        aligned[1] = s_shape[0]
        return tuple(aligned)
    unidirectional(x_shape, s_shape)
    return tuple(s_shape)


# ---------------------------------------------------------------------------------------
# numpy restatements of the OpenVINO reference formulas (cross-check, and the value where the
# reference has no evaluate)
# ---------------------------------------------------------------------------------------

def np_prelu(x, s):
    with np.errstate(all="ignore"):
        if x.dtype == np.float16:
            return np_prelu(x.astype(np.float32), s.astype(np.float32)).astype(np.float16)
        return np.where(x < 0, x * s, x).astype(x.dtype)  # reference: x < 0 ? x * slope : x


def np_fake_quantize(x, il, ih, ol, oh, levels):
    """OpenVINO's FakeQuantize-1 formula: x <= min(il, ih) -> ol; x > max(il, ih) -> oh; else
    round((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol, rounding half to
    even, computed in the element type (f16 via f32)."""
    dt = x.dtype
    c = np.float32 if dt == np.float16 else dt.type
    x, il, ih, ol, oh = (v.astype(c) for v in (x, il, ih, ol, oh))
    q = c(levels - 1)
    with np.errstate(all="ignore"):
        mid = np.rint((x - il) / (ih - il) * q) / q * (oh - ol) + ol
        r = np.where(x <= np.minimum(il, ih), ol, np.where(x > np.maximum(il, ih), oh, mid))
    return r.astype(dt)


def np_shift(a, b, left):
    """Shifts with amounts in 0..bits-1 (the only amounts OpenVINO's shifts define)."""
    bits_ = np.iinfo(a.dtype).bits
    assert np.all((b >= 0) & (b < bits_)), "out-of-range OpenVINO shift amounts are not generated"
    if left:
        u = np.dtype(f"u{a.dtype.itemsize}")
        return np.left_shift(a.view(u), b.astype(u)).view(a.dtype)
    return np.right_shift(a, b.astype(a.dtype))


# ---------------------------------------------------------------------------------------
# The suite
# ---------------------------------------------------------------------------------------


class Suite:
    def __init__(self, ov):
        self.ov = ov
        self.count = {}
        self.names = set()
        self.departures = []   # (case, op, dtype, runtime, kind, example)
        self.unfolded = set()
        self.ref_vs_numpy = []
        self.surprises = []

    def write(self, group, name, op, arrays, expected, source, notes, attrs=None, ab=None,
              axis=None, ulp=False):
        key = f"{group}/{name}"
        assert key not in self.names, key
        self.names.add(key)
        folder = OUT / group / name
        folder.mkdir(parents=True)
        c = {"name": name, "op": "eltwise", "eltwise": op}
        if ab is not None:
            c["auto_broadcast"] = ab
            if ab == "pdpd" and axis is not None:
                c["axis"] = axis
        if attrs:
            c["attrs"] = attrs
        c["inputs"] = []
        for i, a in enumerate(arrays):
            np.save(folder / f"in{i}.npy", np.array(a, order="C", copy=True), allow_pickle=False)
            c["inputs"].append(f"in{i}.npy")
        if expected is None:
            c["error"] = True
        else:
            np.save(folder / "out0.npy", np.array(expected, order="C", copy=True), allow_pickle=False)
            c["outputs"] = ["out0.npy"]
            if ulp:
                c["ulp"] = 1
        c["source"] = source
        if notes:
            c["note"] = " | ".join(notes)
        (folder / "case.json").write_text(json.dumps(c, ensure_ascii=False) + "\n", encoding="utf-8")
        self.count[group] = self.count.get(group, 0) + 1

    def departed(self, key, op, dtype, runtime, kind, example, notes):
        notes.append(f"{runtime} {kind}: {example}" if kind != "values" else f"{runtime} differs: {example}")
        self.departures.append((key, op, dtype, runtime, kind, example))

    def compare_other(self, key, op, dtype, runtime, got, expected, bx, notes, ulp):
        """Records where another runtime (ONNX Runtime, the CPU plugin) departs from the case."""
        if expected is None:
            if got[0] == "ok":
                self.departed(key, op, dtype, runtime, "accepts an error case",
                              f"output {shape_str(got[1].shape)}", notes)
            elif got[0] == "crashed":
                self.departed(key, op, dtype, runtime, "crashes", got[1], notes)
            return
        if got[0] != "ok":
            self.departed(key, op, dtype, runtime, "rejects" if got[0] == "rejected" else "crashes",
                          got[1], notes)
            return
        g = np.asarray(got[1])
        if g.shape != expected.shape:
            self.departed(key, op, dtype, runtime, "shape", f"output {shape_str(g.shape)} instead of {shape_str(expected.shape)}", notes)
        elif g.dtype != expected.dtype:
            self.departed(key, op, dtype, runtime, "dtype", f"output {g.dtype} instead of {expected.dtype}", notes)
        elif not same(g, expected) and not (ulp and within_ulp(g, expected)):
            self.departed(key, op, dtype, runtime, "values", diff(bx, expected, g), notes)

    # -- OpenVINO ops ---------------------------------------------------------------------

    def ov_case(self, group, name, op, ov_op, arrays, ab=None, axis=None, attrs=None,
                opset="opset13", note=None, expect_error=None, onnx_too=False):
        """An OpenVINO op: the rule restated in numpy decides acceptance and gives a value; the
        reference by constant folding is the oracle where it folds; the CPU plugin is recorded."""
        key = f"{group}/{name}"
        notes = [note] if note else []
        dtype = dtname(arrays[0])
        ov_attrs = dict(attrs or {})
        if ab is not None:
            ov_attrs["auto_broadcast"] = ab
            if ab == "pdpd":
                ov_attrs["auto_broadcast.auto_broadcast_axis"] = -1 if axis is None else axis
        want, bx, why = None, None, None
        try:
            want, bx = numpy_value(op, arrays, ab, axis, attrs)
        except Rejected as r:
            why = str(r)
        ref = self.ov.call("ref", ov_op, [np.array(a) for a in arrays], ov_attrs, opset)
        if ref[0] == "unfolded":  # ConstantFolding skips FakeQuantize on purpose
            ref = self.ov.call("eval", ov_op, [np.array(a) for a in arrays], ov_attrs, opset)
        cpu = self.ov.call("cpu", ov_op, [np.array(a) for a in arrays], ov_attrs, opset)
        source, expected = "openvino-reference", None
        if why is not None:
            notes.insert(0, f"rejected: {why}")
            if ref[0] == "ok":
                notes.append(f"OpenVINO reference accepts it (output {shape_str(ref[1].shape)}"
                             + (f", values {fmt_list(ref[1])}" if ref[1].size <= 8 else "") + ")")
                self.surprises.append(f"{key}: reference accepts what the rule rejects")
                source = "spec"
            elif ref[0] == "rejected":
                notes.append(f"OpenVINO reference rejects it too: {ref[1]}")
            else:
                notes.append(f"OpenVINO reference: {ref[0]} ({ref[1]})")
                source = "spec"
        elif ref[0] == "ok" and op == "fake_quantize" and ab == "pdpd" and not same(np.asarray(ref[1]), want):
            # Measured: the reference's (and the CPU plugin's) PDPD FakeQuantize does not place
            # the limits by the axis (input_low [0, 100] at axis 0 on X [2, 3] leaves row 1
            # unclipped), contradicting its own broadcast rule: numpy.
            expected, source = want, "numpy"
            notes.append("OpenVINO reference's PDPD FakeQuantize does not place the limits by the axis; "
                         "numpy. Reference gave " + diff(bx, want, np.asarray(ref[1])))
            self.surprises.append(f"{key}: reference's PDPD FakeQuantize ignores the axis")
        elif ref[0] == "ok":
            expected = np.asarray(ref[1])
            if not same(expected, want):
                d = diff(bx, expected, want) if expected.shape == want.shape else \
                    f"shape {shape_str(expected.shape)} vs numpy {shape_str(want.shape)}"
                notes.append("numpy (restating the reference's formula) differs: " + d)
                self.ref_vs_numpy.append(f"{key}: {d}")
        else:
            expected, source = want, "numpy"
            if ref[0] == "unfolded":
                self.unfolded.add((ov_op, dtype))
                notes.append(f"OpenVINO reference has no evaluate for {ov_op} on {dtype} (left unfolded); numpy")
            else:
                notes.append(f"OpenVINO reference {ref[0]} ({ref[1]}) where the rule accepts; numpy")
                self.surprises.append(f"{key}: reference {ref[0]}: {ref[1]}")
        if expect_error is not None:
            assert (expected is None) == expect_error, (key, why, ref)
        self.compare_other(key, op, dtype, "CPU plugin", cpu, expected, bx, notes, False)
        if onnx_too and ab in ("numpy", None):
            self.compare_other(key, op, dtype, "onnx.reference",
                               onnx_reference(op, arrays, {}), expected, bx, notes, False)
        self.write(group, name, op, arrays, expected, source, notes, attrs, ab, axis)

    # -- ONNX ops -------------------------------------------------------------------------

    def onnx_case(self, group, name, op, arrays, attrs=None, note=None, expect_error=None,
                  ulp=False):
        """An ONNX op: the rule restated decides acceptance; onnx.reference gives the value;
        ONNX Runtime is recorded."""
        key = f"{group}/{name}"
        notes = [note] if note else []
        arrays = [np.asarray(a) for a in arrays]
        dtype = dtname(arrays[0]) if arrays else "-"
        why, bx = None, None
        try:
            bx = onnx_rule(op, arrays)
        except Rejected as r:
            why = str(r)
        onnx_attrs = dict(attrs or {})
        ref = onnx_reference(op, arrays, onnx_attrs) if arrays else ("rejected", "no inputs")
        ort = onnxruntime(op, arrays, onnx_attrs) if arrays else ("rejected", "no inputs")
        source, expected = "onnx-reference", None
        if why is not None:
            notes.insert(0, f"rejected: {why}")
            if ref[0] == "ok":
                notes.append(f"onnx.reference accepts it (output {shape_str(ref[1].shape)}"
                             + (f", values {fmt_list(ref[1])}" if ref[1].size <= 8 else "") + ")")
                self.surprises.append(f"{key}: onnx.reference accepts what the rule rejects")
                source = "spec"
            else:
                notes.append(f"onnx.reference rejects it too: {ref[1]}")
        elif ref[0] == "ok" and op in ONNX_SPEC and not same(np.asarray(ref[1]), ONNX_SPEC[op][0](arrays)):
            expected, source = ONNX_SPEC[op][0](arrays), "numpy"
            notes.append(f"onnx.reference departs from the spec ({ONNX_SPEC[op][1]}): "
                         + diff(bx, expected, np.asarray(ref[1])) + "; numpy, by the spec")
            self.surprises.append(f"{key}: onnx.reference departs from the spec ({ONNX_SPEC[op][1]})")
        elif ref[0] == "ok":
            expected = np.asarray(ref[1])
        elif op in ONNX_RESTATED:
            expected, source = ONNX_RESTATED[op](arrays), "numpy"
            notes.append(f"onnx.reference fails ({ref[1]}) where the rule accepts; numpy, "
                         "restating the reference's formula")
            self.surprises.append(f"{key}: onnx.reference fails: {ref[1]}")
        else:
            raise AssertionError(f"{key}: the rule accepts, onnx.reference: {ref}")
        if expect_error is not None:
            assert (expected is None) == expect_error, (key, why, ref)
        self.compare_other(key, op, dtype, "ONNX Runtime", ort, expected, bx, notes, ulp)
        self.write(group, name, op, arrays, expected, source, notes, attrs, ulp=ulp)


def fmt_list(a):
    return "[" + ", ".join(fmt(v) for v in np.ravel(a)) + "]"


def diff(bx, want, got):
    w, g = want.ravel(), got.ravel()
    bad = [i for i in range(w.size) if w[i:i + 1].tobytes() != g[i:i + 1].tobytes()]
    i = bad[0]
    ins = ", ".join(fmt(np.ravel(x)[i]) for x in bx) if bx is not None else "?"
    return f"{len(bad)} of {w.size} elements, first: f({ins}) = {fmt(g[i])}, expected {fmt(w[i])}"


def numpy_value(op, arrays, ab, axis, attrs):
    """OpenVINO ops: the broadcast inputs and the value, or Rejected."""
    if op == "prelu":
        x, s = arrays
        s_al = s.reshape(prelu_slope(x.shape, s.shape))
        sb = np.broadcast_to(s_al, x.shape)
        return np_prelu(x, sb), [x, sb]
    if op == "fake_quantize":
        levels = attrs["levels"]
        if levels < 2:
            raise Rejected(f"FakeQuantize: levels {levels} < 2")
        x = arrays[0]
        if any(a.dtype != x.dtype for a in arrays):
            raise Rejected("FakeQuantize: the five inputs must have one element type")
        if ab == "pdpd":  # each of the four limits goes onto X's shape
            from generate_eltwise import pdpd_align
            ax = -1 if axis is None else axis
            bx = [x] + [np.broadcast_to(a.reshape(pdpd_align(x.shape, a.shape, ax)), x.shape)
                        for a in arrays[1:]]
        else:
            bx = broadcast_inputs(arrays, ab, axis)
            if bx[0].shape != x.shape:
                raise Rejected(f"FakeQuantize: the limits broadcast onto X {shape_str(x.shape)}; "
                               f"they would make it {shape_str(bx[0].shape)}")
        return np_fake_quantize(*bx, levels), bx
    a, b = arrays
    if a.dtype != b.dtype:
        raise Rejected(f"{op}: element types differ ({a.dtype}, {b.dtype})")
    if a.dtype.kind not in "iub":
        raise Rejected(f"{op}: integer or boolean element types only, not {a.dtype}")
    if op.startswith("bitwise_") and op.endswith("shift") and a.dtype.kind == "b":
        raise Rejected(f"{op}: integer element types only, not bool")
    bx = broadcast_inputs(arrays, ab, axis)
    fn = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
          "bitwise_left_shift": lambda p, q: np_shift(p, q, True),
          "bitwise_right_shift": lambda p, q: np_shift(p, q, False)}[op]
    return np.asarray(fn(*bx), dtype=a.dtype), bx


def np_mean(arrays):
    """onnx.reference's Mean (sum left to right in the type, then / N, cast back) without its
    in-place `+=`, which cannot grow the first input to the broadcast shape."""
    res = arrays[0].copy()
    for m in arrays[1:]:
        res = res + m
    with np.errstate(all="ignore"):
        return (res / len(arrays)).astype(arrays[0].dtype)


ONNX_RESTATED = {"mean": np_mean}


def np_sum(arrays):
    """Sum as the left fold in0 + in1 + ... in the type (IEEE: -0.0 + -0.0 = -0.0)."""
    res = arrays[0].copy()
    for m in arrays[1:]:
        res = res + m
    return np.asarray(res, dtype=arrays[0].dtype)


def np_onnx_prelu(arrays):
    """ONNX PRelu's definition: slope * x for x < 0, x for x >= 0 (so -0.0 and NaN stay x)."""
    x, s = arrays
    with np.errstate(all="ignore"):
        return np.where(x < 0, x * s, x).astype(x.dtype)


# Where onnx.reference's code departs from the op's written definition, the definition wins.
ONNX_SPEC = {
    "sum": (np_sum, "Python's sum() starts from the integer 0, so 0 + -0.0 makes -0.0 sums +0.0"),
    "onnx_prelu": (np_onnx_prelu, "it tests x > 0, so -0.0 and 0.0 take the slope: "
                                  "f(x) = x for x >= 0 in the spec"),
}

ONNX_TYPES = {
    "sum": FLOATS, "mean": FLOATS, "max": NUMERIC, "min": NUMERIC, "bit_shift": INTS,
    "onnx_prelu": ["f16", "f32", "f64", "i32", "i64", "u32", "u64"], "onnx_mod": NUMERIC,
    "onnx_div": NUMERIC,
}


def onnx_rule(op, arrays):
    """ONNX ops: acceptance by the spec's shape and type rules; returns the broadcast inputs."""
    if not arrays:
        raise Rejected(f"{op}: at least one input")
    dts = [dtname(a) for a in arrays]
    if op == "onnx_pow":
        if len(arrays) != 2:
            raise Rejected("Pow: two inputs")
        if dts[0] not in ("i32", "i64", "f16", "f32", "f64"):
            raise Rejected(f"Pow: base type {dts[0]} not in T")
    else:
        if any(d != dts[0] for d in dts):
            raise Rejected(f"{op}: one element type for every input, not {dts}")
        if dts[0] not in ONNX_TYPES[op]:
            raise Rejected(f"{op}: type {dts[0]} not in the op's type constraint")
    if op == "onnx_prelu":
        x, s = arrays
        unidirectional(x.shape, s.shape)
        return [x, np.broadcast_to(s, x.shape)]
    out = numpy_shape([a.shape for a in arrays])
    bx = [np.broadcast_to(a, out) for a in arrays]
    if op in ("onnx_mod", "onnx_div") and arrays[0].dtype.kind in "iu" and np.any(bx[1] == 0):
        raise Rejected("integer division by zero")
    return bx


# ---------------------------------------------------------------------------------------
# Groups
# ---------------------------------------------------------------------------------------

# Multidirectional shape sets, N = 1..5, ranks 0..6, zero-size.
MULTI = [
    [(2, 3)],
    [(2, 3), (3,)],
    [(2, 1, 3), (4, 1), (1,)],
    [(1, 2, 1, 3, 1, 2), (2, 1, 3, 2, 1), (2,), ()],
    [(3, 1, 1), (1, 4, 1), (1, 1, 5), (), (3, 4, 5)],
    [(), (), ()],
    [(2, 0, 3), (1, 3), (0, 1)],
    [(4, 1), (1, 5)],
    [(), (2, 2)],
    [(2, 1, 2, 1, 2, 1), (1, 2, 1, 2, 1, 2)],
]


def variadic_group(s):
    g = "variadic"
    k = 0
    for op in ["sum", "mean", "max", "min"]:
        for dt in ONNX_TYPES[op]:
            for _ in range(2):
                shapes = MULTI[k % len(MULTI)]
                k += 1
                arrays = [vals(dt, sh, "add", i % 2, salt=k + 3 * i) for i, sh in enumerate(shapes)]
                name = f"{op}_{dt}_" + "_".join(sname(sh) for sh in shapes)
                s.onnx_case(g, name, op, arrays, expect_error=False)
    nan, inf = np.nan, np.inf
    for op in ["sum", "mean", "max", "min"]:
        for dt in FLOATS:
            t = NP[dt]
            a = np.array([nan, 1.0, nan, 0.0, -0.0, inf, -inf, 2.0, -0.0, 0.0], t)
            b = np.array([1.0, nan, nan, -0.0, 0.0, -inf, 3.0, inf, -0.0, 0.0], t)
            s.onnx_case(g, f"{op}_{dt}_nan_signed_zero_inf", op, [a, b], expect_error=False)
            c = np.array([2.0, 2.0, 0.0, 0.0, -0.0, 1.0, 1.0, nan, 0.0, -0.0], t)
            s.onnx_case(g, f"{op}_{dt}_three_nan_signed_zero_inf", op, [a, b, c], expect_error=False)
        s.onnx_case(g, f"{op}_f16_nan_payload", op,
                    [np.array([0x7E01, 0x7C01 | 0x8000], np.uint16).view(np.float16),
                     np.array([1.0, 2.0], np.float16)], expect_error=False)
    for dt in INTS:
        info = np.iinfo(NP[dt])
        lo, hi = int(info.min), int(info.max)
        for op in ["max", "min"]:
            s.onnx_case(g, f"{op}_{dt}_extremes", op,
                        [np.array([lo, hi, lo, 0, hi], NP[dt]), np.array([hi, lo, lo, hi, 0], NP[dt]),
                         np.array([0, 1, hi, lo, 1], NP[dt])], expect_error=False)
    # Rounding: f16 sums and means overflowing or rounding at every step.
    s.onnx_case(g, "sum_f16_rounding_overflow", "sum",
                [np.array([65504.0, 0.1, 2048.0, -65504.0], np.float16),
                 np.array([32.0, 0.2, 1.0, -32.0], np.float16),
                 np.array([-32.0, 0.3, 1.0, 16.0], np.float16)], expect_error=False)
    for dt in FLOATS:
        s.onnx_case(g, f"mean_{dt}_rounding", "mean",
                    [np.array([0.1, 65504.0, 1.0, -0.0], NP[dt]), np.array([0.2, 65504.0, 2.0, -0.0], NP[dt]),
                     np.array([0.3, 1.0, 2.0, -0.0], NP[dt])], expect_error=False)
        s.onnx_case(g, f"sum_{dt}_one_input_zero_size", "sum", [vals(dt, (0, 3))], expect_error=False)
    # errors
    for op in ["sum", "mean", "max", "min"]:
        s.onnx_case(g, f"{op}_f32_incompatible_3_with_2", op,
                    [vals("f32", (2, 3)), vals("f32", (3,)), vals("f32", (2,))],
                    note="numpy rule over all inputs: 3 against 2", expect_error=True)
        s.onnx_case(g, f"{op}_no_inputs", op, [], note="the op takes 1 to N inputs", expect_error=True)
        s.onnx_case(g, f"{op}_mixed_f32_f64", op, [vals("f32", (2,)), vals("f64", (2,))],
                    note="one element type for every input", expect_error=True)


def bitwise_group(s):
    g = "bitwise"
    cfgs = [((2, 3), (2, 3), "none", None), ((2, 3), (3,), "numpy", None), ((4, 1), (1, 5), "numpy", None),
            ((), (2, 2), "numpy", None), ((2, 3, 4), (3, 1), "pdpd", 1), ((2, 3, 4), (4,), "pdpd", None),
            ((1, 2, 1, 3, 1, 2), (2, 1, 3, 2, 1), "numpy", None), ((2, 0, 3), (1, 3), "numpy", None),
            ((2, 3, 2), (2, 3), "pdpd", 0), ((), (), "numpy", None), ((5,), (1,), "numpy", None)]
    k = 0
    for op, ov_op in [("bitwise_and", "BitwiseAnd"), ("bitwise_or", "BitwiseOr"), ("bitwise_xor", "BitwiseXor")]:
        for dt in ["bool"] + INTS:
            for _ in range(2):
                a_s, b_s, ab, axis = cfgs[k % len(cfgs)]
                k += 1
                a = vals(dt, a_s, "add", 0, salt=k)
                b = vals(dt, b_s, "add", 1, salt=k + 1)
                s.ov_case(g, f"{op}_{dt}_{sname(a_s)}_{ab}_{sname(b_s)}" + (f"_axis{axis}" if axis is not None else ""),
                          op, ov_op, [a, b], ab, axis, expect_error=False, onnx_too=dt != "bool")
        for dt in INTS:
            info = np.iinfo(NP[dt])
            lo, hi = int(info.min), int(info.max)
            a = np.array([lo, hi, lo, hi, 0, -1 if lo else hi, 0x55 if hi > 0x55 else 1], NP[dt])
            b = np.array([hi, lo, lo, 0, hi, 1, 0x2A], NP[dt])
            s.ov_case(g, f"{op}_{dt}_extremes", op, ov_op, [a, b], "none", expect_error=False, onnx_too=True)
        s.ov_case(g, f"{op}_bool_truth_table", op, ov_op,
                  [np.array([True, True, False, False]), np.array([True, False, True, False])], "none",
                  expect_error=False)
        # errors
        s.ov_case("bitwise", f"{op}_f32_refused", op, ov_op, [vals("f32", (3,)), vals("f32", (3,), "add", 1)],
                  "numpy", note="integer or boolean element types only", expect_error=True)
        s.ov_case("bitwise", f"{op}_i32_none_2x3_with_3", op, ov_op, [vals("i32", (2, 3)), vals("i32", (3,))],
                  "none", note="none: the shapes must be equal", expect_error=True)
        s.ov_case("bitwise", f"{op}_u8_numpy_3_with_2", op, ov_op, [vals("u8", (3,)), vals("u8", (2,))],
                  "numpy", note="numpy: 3 against 2", expect_error=True)
        s.ov_case("bitwise", f"{op}_i16_pdpd_3x4_with_2x3x4_axis0", op, ov_op,
                  [vals("i16", (3, 4)), vals("i16", (2, 3, 4))], "pdpd", 0,
                  note="pdpd: rank(B) > rank(A)", expect_error=True)


def shift_group(s):
    g = "shift"
    cfgs = [((2, 3), (2, 3), "none", None), ((2, 3), (3,), "numpy", None), ((4, 1), (1, 5), "numpy", None),
            ((2, 3, 4), (3, 1), "pdpd", 1), ((), (2, 2), "numpy", None), ((2, 3, 4), (4,), "pdpd", None),
            ((1, 2, 1, 3, 1, 2), (2, 1, 3, 2, 1), "numpy", None), ((2, 0, 3), (1, 3), "numpy", None),
            ((2, 3, 2), (2, 3), "pdpd", 0), ((), (), "numpy", None)]
    k = 0
    for op, ov_op in [("bitwise_left_shift", "BitwiseLeftShift"), ("bitwise_right_shift", "BitwiseRightShift")]:
        for dt in INTS:
            bits_ = np.iinfo(NP[dt]).bits
            for _ in range(2):
                a_s, b_s, ab, axis = cfgs[k % len(cfgs)]
                k += 1
                a = vals(dt, a_s, "add", 0, salt=k)
                n = int(np.prod(b_s, dtype=np.int64))
                amounts = np.array([(i * 5 + k) % bits_ for i in range(n)], NP[dt]).reshape(b_s)
                s.ov_case(g, f"{op}_{dt}_{sname(a_s)}_{ab}_{sname(b_s)}" + (f"_axis{axis}" if axis is not None else ""),
                          op, ov_op, [a, amounts], ab, axis, opset="opset15", expect_error=False)
            info = np.iinfo(NP[dt])
            a = np.array([int(info.min), int(info.max), 1, -1 if info.min else 3, 5, int(info.max)], NP[dt])
            b = np.array([1, 1, bits_ - 1, bits_ - 1, 0, bits_ - 1], NP[dt])
            s.ov_case(g, f"{op}_{dt}_extremes_and_last_bit", op, ov_op, [a, b], "none", opset="opset15",
                      note="amounts 0 .. bits-1; the sign bit shifted in and out", expect_error=False)
        s.ov_case(g, f"{op}_f32_refused", op, ov_op, [vals("f32", (3,)), vals("f32", (3,), "add", 1)],
                  "numpy", opset="opset15", note="integer element types only", expect_error=True)
        s.ov_case(g, f"{op}_bool_refused", op, ov_op, [vals("bool", (3,)), vals("bool", (3,))],
                  "numpy", opset="opset15", note="integer element types only", expect_error=True)
        s.ov_case(g, f"{op}_i32_numpy_2x3_with_2", op, ov_op, [vals("i32", (2, 3)), np.array([1, 2], np.int32)],
                  "numpy", opset="opset15", note="numpy: 3 against 2", expect_error=True)
    # ONNX BitShift: every amount defined (opset 28): >= bits or negative gives the sign fill.
    shapes = [((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 2)), ((2, 3), ()), ((1, 2, 1, 3, 1, 2), (2, 1, 3, 2, 1)),
              ((2, 0, 3), (1, 3)), ((3,), (3,))]
    k = 0
    for direction in ["LEFT", "RIGHT"]:
        for dt in INTS:
            bits_ = np.iinfo(NP[dt]).bits
            for _ in range(2):
                a_s, b_s = shapes[k % len(shapes)]
                k += 1
                a = vals(dt, a_s, "add", 0, salt=k)
                n = int(np.prod(b_s, dtype=np.int64))
                amounts = np.array([(i * 3 + k) % bits_ for i in range(n)], NP[dt]).reshape(b_s)
                s.onnx_case(g, f"bit_shift_{direction.lower()}_{dt}_{sname(a_s)}_{sname(b_s)}", "bit_shift",
                            [a, amounts], {"direction": direction}, expect_error=False)
            info = np.iinfo(NP[dt])
            lo, hi = int(info.min), int(info.max)
            am = [0, 1, bits_ - 1, bits_, bits_ + 1, 2 * bits_, min(255, hi), hi]
            if info.min < 0:
                am += [-1, -bits_, lo]
            xs = [1, hi, lo, 5, -1 if lo else 3, -5 if lo else 7]
            a = np.array([[x] for x in xs], NP[dt])
            b = np.array(am, NP[dt])
            s.onnx_case(g, f"bit_shift_{direction.lower()}_{dt}_every_amount", "bit_shift", [a, b],
                        {"direction": direction},
                        note="amounts past the bit width and negative ones: BitShift-28 gives the sign fill",
                        expect_error=False)
    s.onnx_case(g, "bit_shift_left_u8_with_u16", "bit_shift",
                [np.array([1, 2], np.uint8), np.array([1, 2], np.uint16)], {"direction": "LEFT"},
                note="one element type for both inputs", expect_error=True)
    s.onnx_case(g, "bit_shift_right_f32_refused", "bit_shift",
                [np.array([1, 2], np.float32), np.array([1, 2], np.float32)], {"direction": "RIGHT"},
                note="integer types only", expect_error=True)
    s.onnx_case(g, "bit_shift_left_u32_3_with_2", "bit_shift",
                [vals("u32", (3,)), np.array([1, 2], np.uint32)], {"direction": "LEFT"},
                note="numpy: 3 against 2", expect_error=True)


def prelu_group(s):
    g = "prelu"
    shapes = [((2, 3, 4), (3,)), ((2, 4, 4), (4,)), ((3, 4), (4,)), ((2, 3, 4), (3, 4)), ((2, 3, 4), (1,)),
              ((2, 3, 4), ()), ((2, 3, 4), (3, 1)), ((3,), (3,)), ((2, 3, 4), (2, 3, 4)),
              ((1, 3, 1, 1), (3,)), ((2, 3, 4), (2, 1, 1)), ((2, 5, 1, 2, 1, 3), (5,)),
              ((2, 5, 1, 2, 1, 3), (2, 1, 3)), ((0, 3, 2), (3,)), ((2, 0, 2), (2,)), ((), ()), ((2, 3, 3), (3,))]
    for i, (x_s, s_s) in enumerate(shapes):
        for dt in (["f16", "f32", "f64", "i8"] if i < 4 else [["f32", "f16", "f64", "i8"][i % 4]]):
            x = vals(dt, x_s, "add", 0, salt=i)
            sl = (vals("f32", s_s, "add", 1, salt=i) / 4).astype(NP[dt]) if dt[0] == "f" else vals(dt, s_s, "add", 1, salt=i)
            note = "a 1-D slope of length C = x.shape[1] goes on axis 1, even where C is also the last dim" \
                if len(s_s) == 1 and len(x_s) >= 2 and s_s[0] == x_s[1] and s_s[0] == x_s[-1] else None
            x, sl = np.asarray(x), np.asarray(sl)
            s.ov_case(g, f"prelu_{dt}_{sname(x_s)}_slope_{sname(s_s)}", "prelu", "PRelu", [x, sl],
                      note=note, expect_error=False)
    nan, inf = np.nan, np.inf
    for dt in FLOATS:
        x = np.array([nan, -0.0, 0.0, inf, -inf, -1.0, 1.0, -2.0], NP[dt])
        sl = np.array([2.0, -2.0, -2.0, -1.0, -1.0, nan, nan, 0.0], NP[dt])
        s.ov_case(g, f"prelu_{dt}_nan_signed_zero_inf", "prelu", "PRelu", [x, sl], expect_error=False)
        s.onnx_case(g, f"onnx_prelu_{dt}_nan_signed_zero_inf", "onnx_prelu", [x, sl], expect_error=False)
    for x_s, s_s in [((5,), (3,)), ((2, 3), (2, 3, 1)), ((2, 3, 4), (2, 3)), ((2, 3, 4), (5,)), ((3,), (1, 3))]:
        s.ov_case(g, f"prelu_f32_{sname(x_s)}_slope_{sname(s_s)}_refused", "prelu", "PRelu",
                  [vals("f32", x_s), vals("f32", s_s, "add", 1)],
                  note="the slope is neither 1-D of length x.shape[1] nor broadcastable onto x",
                  expect_error=True)
    # ONNX PRelu: unidirectional (slope onto X) on its seven types.
    oshapes = [((2, 3, 4), (4,)), ((2, 3, 4), (3, 1)), ((2, 3, 4), ()), ((1, 2, 1, 3, 1, 2), (2, 1, 3, 1, 2)),
               ((2, 0, 3), (1, 3)), ((), ()), ((3,), (1,))]
    for i, dt in enumerate(ONNX_TYPES["onnx_prelu"]):
        for j in range(2):
            x_s, s_s = oshapes[(2 * i + j) % len(oshapes)]
            x = vals(dt, x_s, "add", 0, salt=i + j)
            sl = (vals("f32", s_s, "add", 1, salt=i) / 4).astype(NP[dt]) if dt[0] == "f" else vals(dt, s_s, "add", 1, salt=i)
            s.onnx_case(g, f"onnx_prelu_{dt}_{sname(x_s)}_slope_{sname(s_s)}", "onnx_prelu", [x, sl],
                        expect_error=False)
    for x_s, s_s in [((2, 3, 4), (3,)), ((3, 4), (2, 3, 4)), ((3,), (2,)), ((2, 1), (2, 3))]:
        s.onnx_case(g, f"onnx_prelu_f32_{sname(x_s)}_slope_{sname(s_s)}_refused", "onnx_prelu",
                    [vals("f32", x_s), vals("f32", s_s, "add", 1)],
                    note="unidirectional: the slope must broadcast onto X's shape", expect_error=True)
    s.onnx_case(g, "onnx_prelu_i8_refused", "onnx_prelu", [vals("i8", (3,)), vals("i8", (3,))],
                note="i8 is not in ONNX PRelu's types", expect_error=True)


def fake_quantize_group(s):
    g = "fake_quantize"

    def fq(name, x, il, ih, ol, oh, levels, ab="numpy", axis=None, note=None, expect_error=False):
        s.ov_case(g, name, "fake_quantize", "FakeQuantize", [x, il, ih, ol, oh], ab, axis,
                  attrs={"levels": levels}, note=note, expect_error=expect_error)

    def a(v, dt="f32"):
        return np.array(v, NP[dt])

    for dt in FLOATS:
        for levels in [2, 16, 255, 256]:
            x = np.linspace(-1.5, 1.5, 37).astype(NP[dt]).reshape(37)
            fq(f"fq_{dt}_levels{levels}_per_tensor", x, a(-1.0, dt), a(1.0, dt), a(-2.0, dt), a(2.0, dt), levels)
        # Rounding edges: x exactly at the half steps (levels 16 over [0, 15] -> steps of 1).
        edges = a([-0.5, 0.0, 0.5, 1.5, 2.5, 3.5, 7.5, 14.5, 15.0, 15.5, 0.49999997, 0.50000006], "f64").astype(NP[dt])
        fq(f"fq_{dt}_levels16_half_steps", edges, a(0.0, dt), a(15.0, dt), a(0.0, dt), a(15.0, dt), 16,
           note="x on the half steps: the reference rounds half to even")
        fq(f"fq_{dt}_levels256_u8_range", np.linspace(-0.2, 1.2, 29).astype(NP[dt]), a(0.0, dt), a(1.0, dt),
           a(0.0, dt), a(255.0, dt), 256)
        # Per channel (the INT8 model's FakeQuantize): limits [1, C, 1, 1].
        x = vals(dt, (2, 3, 2, 2), "add", 0) / 4
        il, ih = a([-1.0, -0.5, 0.0], dt).reshape(1, 3, 1, 1), a([1.0, 0.5, 2.0], dt).reshape(1, 3, 1, 1)
        ol, oh = a([-1.0, 0.0, -4.0], dt).reshape(1, 3, 1, 1), a([1.0, 1.0, 4.0], dt).reshape(1, 3, 1, 1)
        fq(f"fq_{dt}_per_channel_2x3x2x2", x.astype(NP[dt]), il, ih, ol, oh, 255)
        # Special values and inverted limits.
        x = a([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.25], dt)
        fq(f"fq_{dt}_nan_inf_signed_zero", x, a(-1.0, dt), a(1.0, dt), a(-1.0, dt), a(1.0, dt), 5)
        fq(f"fq_{dt}_inverted_input_limits", a([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], dt), a(1.0, dt), a(-1.0, dt),
           a(0.0, dt), a(4.0, dt), 5, note="input_low > input_high")
        fq(f"fq_{dt}_inverted_output_limits", a([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], dt), a(-1.0, dt), a(1.0, dt),
           a(4.0, dt), a(0.0, dt), 5, note="output_low > output_high")
    # Broadcast configurations: numpy (ranks 0-6, zero-size), none, pdpd.
    x6 = vals("f32", (2, 1, 3, 1, 2, 2), "add", 0) / 8
    fq("fq_f32_rank6_mixed_limit_shapes", x6, a(-0.5).reshape(1, 1, 1, 1, 1, 1), a([0.5, 1.0]).reshape(2, 1),
       a(0.0), a([1.0, 2.0, 3.0]).reshape(3, 1, 1, 1), 17)
    fq("fq_f32_scalar_x", a(0.3), a(0.0), a(1.0), a(0.0), a(10.0), 11)
    fq("fq_f32_zero_size", vals("f32", (2, 0, 3)), a(0.0), a(1.0), a(0.0), a(1.0), 3)
    fq("fq_f32_none_equal_shapes", vals("f32", (2, 3)) / 4, np.full((2, 3), -1.0, np.float32),
       np.full((2, 3), 1.0, np.float32), np.full((2, 3), -3.0, np.float32), np.full((2, 3), 3.0, np.float32), 7,
       ab="none")
    fq("fq_f32_pdpd_axis1", vals("f32", (2, 3, 4)) / 4, a([-1.0, -0.5, 0.0]), a([1.0, 0.5, 2.0]),
       a([-1.0]), a([1.0, 2.0, 3.0]), 9, ab="pdpd", axis=1)
    fq("fq_f32_pdpd_axis_m1", vals("f32", (2, 3, 4)) / 4, a([-1.0, -0.5, 0.0, -2.0]), a(1.0),
       a(-1.0), a(1.0), 9, ab="pdpd")
    fq("fq_f32_pdpd_axis0", vals("f32", (2, 3)) / 4, a([-1.0, 0.5]), a(1.0), a(-1.0), a(1.0), 9,
       ab="pdpd", axis=0)
    # errors
    fq("fq_f32_none_shapes_differ", vals("f32", (2, 3)), a(-1.0), a(1.0), a(-1.0), a(1.0), 5, ab="none",
       note="none: every input has X's shape", expect_error=True)
    fq("fq_f32_numpy_incompatible", vals("f32", (2, 3)), a([-1.0, 0.0]), a(1.0), a(-1.0), a(1.0), 5,
       note="numpy: 2 against 3", expect_error=True)
    fq("fq_f32_pdpd_limit_mismatch_axis0", vals("f32", (2, 3)), a([-1.0, 0.0, 1.0]), a(1.0), a(-1.0), a(1.0), 5,
       ab="pdpd", axis=0, note="pdpd: the limit [3] at axis 0 meets X's dim 2", expect_error=True)
    fq("fq_f32_pdpd_limit_past_x", vals("f32", (2, 3)), a([-1.0, 0.0, 1.0]), a(1.0), a(-1.0), a(1.0), 5,
       ab="pdpd", axis=2, note="pdpd: the limit [3] from axis 2 runs past X", expect_error=True)
    fq("fq_f32_numpy_limits_grow_x", vals("f32", (3,)) / 4, a([[-1.0], [0.0]]), a(1.0), a(-1.0), a(1.0), 5,
       note="the limits broadcast onto X (the output is X's shape): a limit [2,1] would make X [3] into [2,3]",
       expect_error=True)
    fq("fq_f32_levels1", vals("f32", (3,)), a(-1.0), a(1.0), a(-1.0), a(1.0), 1,
       note="levels must be at least 2", expect_error=True)
    fq("fq_f32_levels0", vals("f32", (3,)), a(-1.0), a(1.0), a(-1.0), a(1.0), 0,
       note="levels must be at least 2", expect_error=True)
    fq("fq_mixed_f32_f16_limits", vals("f32", (3,)), a(-1.0, "f16"), a(1.0), a(-1.0), a(1.0), 5,
       note="one element type for the five inputs", expect_error=True)


def mod_div_groups(s):
    cfgs = [((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 2)), ((2, 3, 4), ()), ((2, 1, 3), (4, 1)),
            ((1, 2, 1, 3, 1, 2), (2, 1, 3, 2, 1)), ((2, 0, 3), (1, 3)), ((3,), (3,)), ((), ())]
    k = 0
    for op, group in [("onnx_mod", "onnx_mod"), ("onnx_div", "onnx_div")]:
        for fmod in ([0, 1] if op == "onnx_mod" else [None]):
            for dt in NUMERIC:
                for _ in range(2):
                    a_s, b_s = cfgs[k % len(cfgs)]
                    k += 1
                    a = vals(dt, a_s, "mod", 0, salt=k)
                    b = vals(dt, b_s, "mod", 1, salt=k + 1)
                    attrs = {"fmod": fmod} if fmod is not None else None
                    tag = f"_fmod{fmod}" if fmod is not None else ""
                    s.onnx_case(group, f"{op}{tag}_{dt}_{sname(a_s)}_{sname(b_s)}", op, [a, b], attrs,
                                expect_error=False)
                if dt[0] in "iu":
                    info = np.iinfo(NP[dt])
                    lo, hi = int(info.min), int(info.max)
                    if lo:
                        a = np.array([7, -7, 7, -7, lo, lo, hi, lo, 0, -1], NP[dt])
                        b = np.array([2, 2, -2, -2, -1, 1, -1, lo, 3, hi], NP[dt])
                    else:
                        a = np.array([7, hi, hi, 0, hi - 1, 1], NP[dt])
                        b = np.array([2, 2, hi, 5, hi, hi], NP[dt])
                    s.onnx_case(group, f"{op}{tag}_{dt}_signs_and_extremes", op, [a, b], attrs,
                                note="MIN / -1 and MIN mod -1 included for signed types" if lo else None,
                                expect_error=False)
                    s.onnx_case(group, f"{op}{tag}_{dt}_by_zero", op,
                                [np.array([[4, 1, 0], [7, 2, 3]], NP[dt]), np.array([1, 0, 2], NP[dt])], attrs,
                                note="integer division by zero (ONNX leaves it undefined): an error here",
                                expect_error=True)
                else:
                    nan, inf = np.nan, np.inf
                    xs = [5.5, -5.5, 5.5, -5.5, 0.0, -0.0, 0.0, -0.0, inf, -inf, 1.0, -1.0, 1.0, -1.0, nan, 1.0, 1.0, -0.0,
                          3.0, -3.0, 1e-3, 7.25]
                    ys = [2.0, 2.0, -2.0, -2.0, 3.0, 3.0, -3.0, -3.0, 2.0, 2.0, inf, inf, -inf, -inf, 1.0, nan, 0.0, 0.0,
                          0.1, 0.1, 0.1, -0.5]
                    s.onnx_case(group, f"{op}{tag}_{dt}_special_values", op,
                                [np.array(xs, NP[dt]), np.array(ys, NP[dt])], attrs, expect_error=False)
        s.onnx_case(group, f"{op}_f32_3_with_2", op, [vals("f32", (3,)), vals("f32", (2,), "add", 1)],
                    {"fmod": 0} if op == "onnx_mod" else None, note="numpy: 3 against 2", expect_error=True)
        s.onnx_case(group, f"{op}_i32_with_i64", op, [vals("i32", (3,)), np.array([1, 2, 3], np.int64)],
                    {"fmod": 0} if op == "onnx_mod" else None, note="one element type for both inputs",
                    expect_error=True)


def pow_group(s):
    g = "onnx_pow"
    bases = ["i32", "i64", "f16", "f32", "f64"]
    cfgs = [((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 2)), ((2, 3, 4), ()), ((2, 1, 3), (4, 1)),
            ((1, 2, 1, 3, 1, 2), (2, 1, 3, 2, 1)), ((2, 0, 3), (1, 3)), ((3,), (3,))]
    k = 0
    for bt in bases:
        for et in NUMERIC:
            a_s, b_s = cfgs[k % len(cfgs)]
            k += 1
            n_a = int(np.prod(a_s, dtype=np.int64))
            n_b = int(np.prod(b_s, dtype=np.int64))
            if bt[0] == "f":
                base = np.array([[2.0, 0.5, 1.5, 3.0, -2.0, 10.0, 0.0, 7.25][(i * 3 + k) % 8] for i in range(n_a)], NP[bt])
            else:
                base = np.array([[2, -3, 1, 0, 3, -1, 5, 7][(i * 3 + k) % 8] for i in range(n_a)], NP[bt])
            # Exponents: small non-negative integers (a negative integer exponent on an integer
            # base has no ONNX answer); float exponents on float bases also take fractions.
            pool = [0, 1, 2, 3, 4, 2, 1]
            if et[0] == "f" and bt[0] == "f":
                pool = [0.0, 1.0, 2.0, 0.5, -1.0, 3.0, -2.0, 1.5]
            elif et[0] == "i" and bt[0] == "f":
                pool = [0, 1, 2, 3, -1, -2, 4]
            exp = np.array([pool[(i * 5 + k) % len(pool)] for i in range(n_b)], NP[et])
            s.onnx_case(g, f"onnx_pow_{bt}_{et}_{sname(a_s)}_{sname(b_s)}", "onnx_pow",
                        [base.reshape(a_s), exp.reshape(b_s)], ulp=bt[0] == "f", expect_error=False)
    nan, inf = np.nan, np.inf
    for bt in FLOATS:
        for et in ["f32", "i64"]:
            x = np.array([nan, 1.0, nan, 0.0, -0.0, 0.0, -0.0, inf, -inf, -inf, -2.0, -2.0, 2.0, 0.5, -1.0], NP[bt])
            y = [0.0, nan, 1.0, -1.0, -1.0, 2.0, 3.0, -1.0, 3.0, 2.0, 0.5, 3.0, 1e3, -1e3, inf] if et == "f32" else \
                [0, 5, 1, -1, -1, 2, 3, -1, 3, 2, 2, 3, 1000, -1000, 7]
            s.onnx_case(g, f"onnx_pow_{bt}_{et}_special_values", "onnx_pow", [x, np.array(y, NP[et])], ulp=True,
                        expect_error=False)
    s.onnx_case(g, "onnx_pow_i32_3_with_2", "onnx_pow", [vals("i32", (3,)), np.array([1, 2], np.int32)],
                note="numpy: 3 against 2", expect_error=True)
    s.onnx_case(g, "onnx_pow_u8_base_refused", "onnx_pow", [np.array([1, 2], np.uint8), np.array([1, 2], np.uint8)],
                note="u8 is not a Pow base type (T: i32, i64, f16, f32, f64)", expect_error=True)


# ---------------------------------------------------------------------------------------

def write_departures(s):
    rows = {}
    for key, op, dt, runtime, kind, ex in s.departures:
        r = rows.setdefault((op, dt, runtime, kind), [0, key, ex])
        r[0] += 1
    lines = ["| op | dtype | runtime | departs by | cases | first case | example |", "|---|---|---|---|---|---|---|"]
    for (op, dt, runtime, kind), (n, key, ex) in sorted(rows.items()):
        lines.append(f"| {op} | {dt} | {runtime} | {kind} | {n} | `{key}` | {ex.replace('|', '/')[:160]} |")
    readme = OUT / "README.md"
    text = readme.read_text(encoding="utf-8")
    begin, end = "<!-- ops-departures:begin -->", "<!-- ops-departures:end -->"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        counts = ", ".join(f"{g} {n}" for g, n in sorted(s.count.items()))
        body = (f"\n{len(s.departures)} departures in {len(rows)} (op, dtype, runtime, kind) groups; "
                f"cases per group: {counts}; total {sum(s.count.values())}.\n\n" + "\n".join(lines) + "\n")
        readme.write_text(head + begin + body + end + tail, encoding="utf-8")


def main():
    for gname in GROUPS:
        if (OUT / gname).exists():
            shutil.rmtree(OUT / gname)
    ov = Worker()
    s = Suite(ov)
    try:
        variadic_group(s)
        bitwise_group(s)
        shift_group(s)
        prelu_group(s)
        fake_quantize_group(s)
        mod_div_groups(s)
        pow_group(s)
    finally:
        ov.close()
    for group, n in sorted(s.count.items()):
        print(f"{group}: {n} cases")
    print(f"total: {sum(s.count.values())}; OpenVINO calls {ov.calls}, worker crashes survived {ov.crashes}")
    print("no reference evaluate (unfolded):", sorted(s.unfolded))
    print("reference vs numpy restatement:")
    for d in s.ref_vs_numpy:
        print("  " + d)
    print("surprises:")
    for d in s.surprises:
        print("  " + d)
    write_departures(s)
    (OUT / "departures_ops.json").write_text(json.dumps(
        {"departures": s.departures, "unfolded": sorted(s.unfolded), "counts": s.count,
         "ref_vs_numpy": s.ref_vs_numpy, "surprises": s.surprises}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
