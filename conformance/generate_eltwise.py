#!/usr/bin/env python3
"""Writes the element-wise conformance suite under conformance/eltwise/ (see its README.md).

    python3 -m pip install -r conformance/eltwise/requirements.txt
    python3 conformance/generate_eltwise.py      # rewrites conformance/eltwise/<groups>/

Expected outputs never come from bcast. Every case is computed three ways:

- OpenVINO's reference implementation: the op's inputs are Constants and
  openvino.passes.ConstantFolding replaces the node with its value (conformance/ovworker.py).
  This is the oracle ("source": "openvino-reference").
- numpy, from the rules restated below (independently of bcast and of OpenVINO's code). Where
  the reference leaves the node unfolded (no evaluate for the op/type pair), crashes, or has no
  defined answer, numpy's value is the expected one ("source": "numpy") and `note` says why.
  Where the reference and numpy differ, the reference wins and `note` records numpy's answer.
- OpenVINO's CPU plugin (Parameters, INFERENCE_PRECISION_HINT=f32): never an oracle; where it
  departs from the expected value, `note` says so and the README's departure table lists it.

Each OpenVINO call runs in a worker process that may die (SIGFPE on integer division by zero,
SIGSEGV on string constants) or hang; a fresh worker takes the next call.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "eltwise"
sys.path.insert(0, str(HERE))
from ovworker import Worker  # noqa: E402

# ---------------------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------------------

OPS = {
    "add": "Add", "subtract": "Subtract", "multiply": "Multiply", "divide": "Divide",
    "maximum": "Maximum", "minimum": "Minimum", "squared_difference": "SquaredDifference",
    "power": "Power", "floor_mod": "FloorMod", "mod": "Mod",
    "equal": "Equal", "not_equal": "NotEqual", "less": "Less", "less_equal": "LessEqual",
    "greater": "Greater", "greater_equal": "GreaterEqual",
    "logical_and": "LogicalAnd", "logical_or": "LogicalOr", "logical_xor": "LogicalXor",
}
ARITH = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "squared_difference",
         "power", "floor_mod", "mod"]
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
NUMERIC = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64"]
NP = {"bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
      "f16": np.float16, "f32": np.float32, "f64": np.float64}


def dtname(a):
    if a.dtype.kind == "U":
        return "str"
    for k, v in NP.items():
        if a.dtype == np.dtype(v):
            return k
    raise ValueError(a.dtype)


class Rejected(Exception):
    pass


# ---------------------------------------------------------------------------------------
# The shape rules (OpenVINO broadcast-rules.rst), each returning the output shape and, per
# input, the shape it is reshaped to before np.broadcast_to.
# ---------------------------------------------------------------------------------------

def pdpd_align(a_shape, b_shape, axis):
    """B onto A (broadcast-rules.rst, PDPD): rank(B) <= rank(A); axis -1 means
    rank(A) - rank(B) (B's own rank, trailing 1s included); no other negative axis; B's
    trailing 1s are dropped for the fit (rule 5); each remaining B dim equals A's or is 1
    (only B stretches). Returns B's shape aligned to A's rank."""
    if len(b_shape) > len(a_shape):
        raise Rejected(f"PDPD: rank(B) {len(b_shape)} > rank(A) {len(a_shape)}")
    if axis == -1:
        start = len(a_shape) - len(b_shape)
    elif axis < -1:
        raise Rejected(f"PDPD: axis {axis} < -1")
    else:
        start = axis
    fitted = list(b_shape)
    while fitted and fitted[-1] == 1:
        fitted.pop()
    if start + len(fitted) > len(a_shape):
        raise Rejected(f"PDPD: B {list(b_shape)} from axis {start} runs past A's rank {len(a_shape)}")
    aligned = [1] * len(a_shape)
    for i, d in enumerate(fitted):
        t = a_shape[start + i]
        if d != t and d != 1:
            raise Rejected(f"PDPD: B dim {d} cannot become A dim {t} at axis {start + i}")
        aligned[start + i] = d
    return tuple(aligned)


def broadcast_inputs(arrays, ab, axis, select=False):
    shapes = [a.shape for a in arrays]
    if ab == "none":
        if any(s != shapes[0] for s in shapes):
            raise Rejected(f"none: shapes differ {shapes}")
        return list(arrays)
    if ab == "numpy":
        try:
            out = np.broadcast_shapes(*shapes)
        except ValueError as e:
            raise Rejected(f"numpy: {e}") from None
        return [np.broadcast_to(a, out) for a in arrays]
    if ab == "pdpd":
        ax = -1 if axis is None else axis
        if select:  # the output is then's shape; else and cond go onto it (OpenVINO Select-1)
            a = arrays[1]
            c = np.broadcast_to(arrays[0].reshape(pdpd_align(a.shape, arrays[0].shape, ax)), a.shape)
            e = np.broadcast_to(arrays[2].reshape(pdpd_align(a.shape, arrays[2].shape, ax)), a.shape)
            return [c, a, e]
        a, b = arrays
        return [a, np.broadcast_to(b.reshape(pdpd_align(a.shape, b.shape, ax)), a.shape)]
    raise ValueError(ab)


# ---------------------------------------------------------------------------------------
# numpy values. `emulate` follows what OpenVINO's reference does where measured on the types
# it evaluates (so that the types it does not evaluate get the same semantics); `plain` is
# numpy's own function, recorded in `note` where it differs.
# ---------------------------------------------------------------------------------------

def int_pow(x, y):
    if y >= 0:
        return x ** y
    if x == 0:
        raise AssertionError("0 ** negative has no integer answer; not generated")
    if abs(x) == 1:
        return x ** (-y) if x == -1 else 1
    return 0  # |x| >= 2: 1 / x**n truncates to 0


def np_eltwise(op, a, b, pythondiv=True, plain=False):
    """a, b already broadcast to the output shape, same dtype."""
    dt = a.dtype
    if op in LOGICAL:
        return {"logical_and": np.logical_and, "logical_or": np.logical_or,
                "logical_xor": np.logical_xor}[op](a, b)
    if dt == np.float16:  # computed in f32, rounded once
        with np.errstate(all="ignore"):
            return np_eltwise(op, a.astype(np.float32), b.astype(np.float32), pythondiv,
                              plain).astype(np.bool_ if op in COMPARE else np.float16)
    is_int = dt.kind in "iu"
    with np.errstate(all="ignore"):
        if op in COMPARE:
            return {"equal": np.equal, "not_equal": np.not_equal, "less": np.less,
                    "less_equal": np.less_equal, "greater": np.greater,
                    "greater_equal": np.greater_equal}[op](a, b)
        if op == "add":
            r = a + b
        elif op == "subtract":
            r = a - b
        elif op == "multiply":
            r = a * b
        elif op == "squared_difference":
            d = a - b
            r = d * d
        elif op == "maximum":
            r = np.maximum(a, b) if plain else np.where(a < b, b, a)  # std::max(a, b)
        elif op == "minimum":
            r = np.minimum(a, b) if plain else np.where(b < a, b, a)  # std::min(a, b)
        elif op in ("divide", "floor_mod", "mod") and is_int:
            if np.any(b == 0):
                raise Rejected("integer division by zero")
            ai = [int(v) for v in a.ravel()]
            bi = [int(v) for v in b.ravel()]
            res = []
            for x, y in zip(ai, bi):
                q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # truncated
                if op == "divide":
                    if pythondiv and q * y != x and (x < 0) != (y < 0):
                        q -= 1
                    res.append(q)
                elif op == "mod":
                    res.append(x - q * y)
                else:
                    res.append(x % y)  # Python's floor mod
            info = np.iinfo(dt)
            span = int(info.max) - int(info.min) + 1
            res = [((v - int(info.min)) % span) + int(info.min) for v in res]  # wraps
            r = np.array(res, dtype=dt).reshape(a.shape)
        elif op == "divide":
            r = a / b
        elif op == "floor_mod":
            if plain:
                r = np.mod(a, b)
            else:  # OpenVINO reference: x - y * floor(x / y), in double, rounded to the type
                xd, yd = a.astype(np.float64), b.astype(np.float64)
                r = (xd - yd * np.floor(xd / yd)).astype(dt)
        elif op == "mod":
            r = np.fmod(a, b)  # truncated: the sign of the dividend (Mod-1 spec)
        elif op == "power":
            if is_int:
                info = np.iinfo(dt)
                res = [int_pow(int(x), int(y)) for x, y in zip(a.ravel(), b.ravel())]
                for v in res:
                    assert info.min <= v <= info.max and abs(v) <= 2 ** 53, \
                        "integer Power overflow is undefined in the reference; not generated"
                r = np.array(res, dtype=dt).reshape(a.shape)
            else:
                r = np.power(a, b)
        else:
            raise ValueError(op)
    return np.asarray(r, dtype=dt)


def np_select(c, t, e):
    return np.where(c, t, e).astype(t.dtype)


# ---------------------------------------------------------------------------------------
# Values: small pools per role, cycled with a stride so that broadcasting mistakes show.
# ---------------------------------------------------------------------------------------

def pool(dtype, op, role):
    t = NP[dtype]
    if dtype == "bool":
        return [True, False, False, True, True]
    if dtype[0] in "iu":
        info = np.iinfo(t)
        signed = dtype[0] == "i"
        if op == "power":
            if role == 0:
                return [2, -3, 1, 0, 3, -1, -2, 2, 1] if signed else [2, 3, 1, 0, 3, 1, 2]
            return [0, 1, 2, 3, 4, 2, 1, 3]
        big = int(info.max) // 3 * 2
        if op in ("floor_mod", "power") and info.bits == 64:
            big = 2 ** 52 - 5  # the reference computes these in double: exact only below ~2**53
        if role == 0:
            p = [7, -7, 3, 0, 100, -100, 5, big, -big, 1, 64, -2] if signed else \
                [7, 200, 3, 0, 100, 5, big, 1, 64, 2, 255, 13]
        else:
            p = [2, -3, 5, 1, 7, -1, 100, -100, big, 3, -2, 64] if signed else \
                [2, 3, 5, 1, 7, 100, big, 250, 64, 9, 13, 4]
            if op not in ("divide", "floor_mod", "mod"):
                p = p + [0]
        return [v for v in p if info.min <= v <= info.max]
    if op == "power":
        if role == 0:
            return [2.0, 0.5, 1.5, 3.0, 0.1, 10.0, 4.0, -2.0, 0.0, 7.25]
        return [2.0, -1.0, 0.5, 3.0, 0.0, 1.5, -2.5, 1.0, 0.25]
    if role == 0:
        return [-2.5, 0.75, 3.0, -0.0, 1.5, 6.25, -4.0, 0.1, 2.0, 100.5, -1.25, 0.0, 1e-3, 7.0]
    p = [1.5, -3.0, 0.1, 2.0, -0.5, 4.0, 3.0, 0.75, -7.0, 100.5, 6.25, 1e3]
    return p


def vals(dtype, shape, op="add", role=0, salt=0):
    n = int(np.prod(shape, dtype=np.int64))
    p = pool(dtype, op, role)
    idx = (np.arange(n) * (5 if len(p) % 5 else 7) + salt * 3 + role) % len(p)
    return np.array([p[i] for i in idx], dtype=NP[dtype]).reshape(shape)


def strs(shape, salt=0):
    words = ["a", "bé", "", "€uro", "x y", "😀", "long-ish word", "0", "Ω", "zz"]
    n = int(np.prod(shape, dtype=np.int64))
    out = np.array([words[(i + salt) % len(words)] for i in range(n)], dtype=str)
    if n == 0:
        out = np.array([], dtype="<U1")
    return out.reshape(shape)


def bits(x):
    return np.array(x, order="C", copy=True).tobytes()


def same(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "U":
        return a.tolist() == b.tolist()
    return bits(a) == bits(b)


def within_ulp(a, b, n=1):
    if a.shape != b.shape or a.dtype != b.dtype or a.dtype.kind != "f":
        return False
    ui = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(ui).astype(np.int64), b.view(ui).astype(np.int64)
    nan = np.isnan(a) & np.isnan(b)
    return bool(np.all(nan | (np.abs(ia - ib) <= n)))


def fmt(v):
    if isinstance(v, np.ndarray):
        v = v.item()
    if isinstance(v, float):
        if np.isnan(v):
            return "nan"
        if v == 0.0:
            return "-0.0" if np.signbit(v) else "0.0"
        return repr(v)
    return str(v)


def shape_str(s):
    return "[" + ",".join(map(str, s)) + "]"


# ---------------------------------------------------------------------------------------
# The suite
# ---------------------------------------------------------------------------------------


class Suite:
    def __init__(self, ov):
        self.ov = ov
        self.count = {}
        self.names = set()
        self.departures = []   # (case, op, dtype, kind, example)
        self.unfolded = set()  # (op, dtype)
        self.ref_disagree = []  # reference vs numpy
        self.surprises = []

    def case(self, group, name, op, arrays, ab="numpy", axis=None, pythondiv=None,
             note=None, write_axis=None, expect_error=None):
        """op: an eltwise name or "select". arrays: inputs (for select: cond, then, else)."""
        key = f"{group}/{name}"
        assert key not in self.names, key
        self.names.add(key)
        notes = [note] if note else []
        is_select = op == "select"
        ov_op = "Select" if is_select else OPS[op]
        dtype = dtname(arrays[1] if is_select else arrays[0])
        attrs = {"auto_broadcast": ab}
        if ab == "pdpd":
            attrs["auto_broadcast.auto_broadcast_axis"] = -1 if axis is None else axis
        if op == "divide":
            attrs["m_pythondiv"] = True if pythondiv is None else pythondiv

        # numpy (the rule + emulation), and plain numpy.
        np_err, want_np, plain_np = None, None, None
        try:
            bx = broadcast_inputs(arrays, ab, axis, select=is_select)
            if is_select:
                want_np = np_select(*bx)
                plain_np = want_np
            else:
                want_np = np_eltwise(op, bx[0], bx[1], True if pythondiv is None else pythondiv)
                plain_np = np_eltwise(op, bx[0], bx[1], True if pythondiv is None else pythondiv,
                                      plain=True)
        except Rejected as r:
            np_err = str(r)
            bx = None

        ref = self.ov.call("ref", ov_op, [np.array(a) for a in arrays], attrs)
        cpu = self.ov.call("cpu", ov_op, [np.array(a) for a in arrays], attrs)
        ulp = op == "power" and dtype in ("f16", "f32", "f64")

        source = "openvino-reference"
        expected = None
        if np_err is not None:
            if ref[0] == "ok":
                if "division by zero" in np_err:
                    notes.append(f"OpenVINO reference returns {fmt(ref[1].ravel()[np.argmax((np.broadcast_to(arrays[1], ref[1].shape) == 0).ravel())]) if ref[1].size else '[]'} for the x / 0 element instead of refusing; integer division by zero is an error here")
                    self.surprises.append(f"{key}: reference gives a value for integer {op} by zero")
                else:
                    notes.append(f"OpenVINO reference accepts it (output {shape_str(ref[1].shape)}); the spec's rule rejects: {np_err}")
                    self.surprises.append(f"{key}: reference accepts what the rule rejects")
            elif ref[0] == "rejected":
                notes.append(f"OpenVINO reference rejects it too: {ref[1]}")
            elif ref[0] == "crashed":
                notes.append(f"OpenVINO reference crashes ({ref[1]})")
            else:
                notes.append(f"OpenVINO reference: {ref[1]} (shape accepted)")
            notes.insert(0, f"rejected: {np_err}")
            if "division by zero" in np_err:
                source = "openvino-reference" if ref[0] == "rejected" else "numpy"
            else:
                source = "openvino-reference" if ref[0] == "rejected" else "spec"
        elif ref[0] == "ok" and ((is_select or op in ("greater", "greater_equal")) and ab == "pdpd"
                                 or (ref[1].dtype == np.bool_ and np.any(ref[1].view(np.uint8) > 1))):
            # The reference's evaluate is broken here (measured): Greater and GreaterEqual under
            # PDPD leave output bytes uninitialised; Select under PDPD indexes cond wrongly.
            expected = want_np
            source = "numpy"
            garbage = ref[1].dtype == np.bool_ and np.any(ref[1].view(np.uint8) > 1)
            why = ("OpenVINO reference's PDPD evaluate of Select indexes cond wrongly" if is_select else
                   f"OpenVINO reference's PDPD evaluate of {ov_op} leaves output bytes uninitialised")
            if same(ref[1], want_np):
                notes.append(f"{why} (measured elsewhere); this run it agreed; numpy")
            else:
                notes.append(f"{why}; numpy. Reference gave " + ("uninitialised bytes" if garbage else self.diff(arrays, bx, want_np, ref[1])))
                self.surprises.append(f"{key}: reference broken ({why})")
        elif ref[0] == "ok":
            expected = ref[1]
            if expected.dtype.kind == "U" or (is_select and dtype == "str"):
                expected = np.array(expected, dtype=str)
            if not same(expected, want_np):
                if ulp and within_ulp(expected, want_np):
                    notes.append("numpy's Power differs by 1 ulp somewhere: " + self.diff(arrays, bx, expected, want_np))
                else:
                    notes.append("numpy (emulating the reference) differs: " + self.diff(arrays, bx, expected, want_np))
                    self.ref_disagree.append(f"{key}: {self.diff(arrays, bx, expected, want_np)}")
            elif not same(expected, plain_np):
                notes.append("plain numpy differs: " + self.diff(arrays, bx, expected, plain_np))
        else:
            expected = want_np
            source = "numpy"
            if ref[0] == "unfolded":
                self.unfolded.add((ov_op, dtype))
                notes.append(f"OpenVINO reference has no evaluate for {ov_op} on {dtype} (left unfolded); numpy" + (" (f16 via f32, rounded once)" if dtype == "f16" else ""))
            elif ref[0] == "crashed":
                notes.append(f"OpenVINO reference crashes ({ref[1]}); numpy")
                self.surprises.append(f"{key}: reference crashed ({ref[1]})")
            elif ref[1].startswith("worker"):
                notes.append(f"OpenVINO reference cannot take it ({ref[1]}); numpy")
            else:
                notes.append(f"OpenVINO reference rejects it ({ref[1]}) but the spec's rule accepts; numpy")
                self.surprises.append(f"{key}: reference rejects ({ref[1]}) what the rule accepts")
            if not same(expected, plain_np):
                notes.append("plain numpy differs: " + self.diff(arrays, bx, expected, plain_np))
        if expect_error is not None:
            assert (expected is None) == expect_error, (key, np_err, ref)

        # The CPU plugin.
        cpu_note = None
        if expected is None:
            if cpu[0] == "ok":
                cpu_note = f"CPU plugin accepts it (output {shape_str(cpu[1].shape)}" + (
                    f", x / 0 gives {fmt(cpu[1].ravel()[np.argmax((np.broadcast_to(arrays[1], cpu[1].shape) == 0).ravel())])}" if "division by zero" in (np_err or "") and cpu[1].size else "") + ")"
                kind = "accepts an error case"
            elif cpu[0] == "crashed":
                cpu_note, kind = f"CPU plugin crashes ({cpu[1]})", "crashes"
        else:
            if cpu[0] == "ok":
                got = cpu[1]
                if is_select and dtype == "str":
                    got = np.array(got, dtype=str)
                if not same(got, expected) and not (ulp and within_ulp(got, expected)):
                    cpu_note = "CPU plugin differs: " + self.diff(arrays, bx, expected, got, plain_np)
                    kind = "values"
                    if got.shape != expected.shape:
                        kind = "shape"
            else:
                cpu_note = f"CPU plugin {'crashes' if cpu[0] == 'crashed' else 'rejects it'}: {cpu[1]}"
                kind = "rejects" if cpu[0] != "crashed" else "crashes"
        if cpu_note:
            notes.append(cpu_note)
            ex = cpu_note.split(": ", 1)[1] if ": " in cpu_note else cpu_note
            self.departures.append((key, "select" if is_select else op, dtype, ab, kind, ex))

        folder = OUT / group / name
        folder.mkdir(parents=True)
        c = {"name": name}
        if is_select:
            c["op"] = "select"
        else:
            c["op"] = "eltwise"
            c["eltwise"] = op
        c["auto_broadcast"] = ab
        if ab == "pdpd" and (axis is not None and (axis != -1 or write_axis)):
            c["axis"] = axis
        if pythondiv is not None:
            c["pythondiv"] = pythondiv
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

    @staticmethod
    def diff(arrays, bx, want, got, plain=None):
        if want.shape != got.shape:
            return f"output shape {shape_str(got.shape)} instead of {shape_str(want.shape)}"
        w, g = want.ravel(), got.ravel()
        if want.dtype.kind == "U":
            bad = [i for i in range(w.size) if w[i] != g[i]]
        else:
            bad = [i for i in range(w.size) if w[i:i + 1].tobytes() != g[i:i + 1].tobytes()]
        i = bad[0]
        ins = ", ".join(fmt(np.ravel(x)[i]) for x in bx)
        s = f"{len(bad)} of {w.size} elements, first: f({ins}) = {fmt(g[i])}, expected {fmt(w[i])}"
        if plain is not None:
            s += f", numpy {fmt(plain.ravel()[i])}"
        return s


# ---------------------------------------------------------------------------------------
# Groups
# ---------------------------------------------------------------------------------------

def sname(s):
    return "x".join(map(str, s)) if s else "scalar"


# Shape configurations (a, b, auto_broadcast, axis), cycled over op x dtype.
CONFIGS = [
    ((2, 3), (2, 3), "none", None),
    ((2, 3), (3,), "numpy", None),
    ((4, 1), (1, 5), "numpy", None),
    ((), (2, 2), "numpy", None),
    ((2, 3, 4), (), "numpy", None),
    ((), (), "numpy", None),
    ((2, 1, 3), (4, 1), "numpy", None),
    ((2, 3, 4), (3, 1), "pdpd", 1),
    ((2, 3, 4), (4,), "pdpd", None),
    ((1, 2, 1, 3, 1, 2), (2, 1, 3, 2, 1), "numpy", None),
    ((2, 1, 2, 1, 2), (1, 2, 1, 2, 1), "numpy", None),
    ((3,), (3,), "none", None),
    ((2, 0, 3), (1, 3), "numpy", None),
    ((2, 3, 2), (2, 3), "pdpd", 0),
    ((5,), (1,), "numpy", None),
    ((1, 1, 2, 1, 2, 1), (3, 1, 1, 1, 2), "numpy", None),
]


def op_dtype_groups(s):
    k = 0
    for op in ARITH + COMPARE:
        group = "arith" if op in ARITH else "compare"
        for dt in NUMERIC:
            for j in range(2):
                a_s, b_s, ab, axis = CONFIGS[k % len(CONFIGS)]
                k += 1
                role_b = 1
                a = vals(dt, a_s, op, 0, salt=k)
                b = vals(dt, b_s, op, role_b, salt=k + 1)
                if op in COMPARE:  # equal elements must occur: b from a's pool too
                    b = vals(dt, b_s, "add", 0, salt=k + 2)
                name = f"{op}_{dt}_{sname(a_s)}_{ab}_{sname(b_s)}" + (f"_axis{axis}" if axis is not None else "")
                s.case(group, name, op, [a, b], ab, axis, expect_error=False)
    # Divide without pythondiv on every dtype; and pythondiv written out.
    for i, dt in enumerate(NUMERIC):
        a_s, b_s = [((2, 3), (3,)), ((3, 4), (3, 1)), ((), (4,))][i % 3]
        a = vals(dt, a_s, "divide", 0, salt=i)
        b = vals(dt, b_s, "divide", 1, salt=i + 4)
        s.case("arith", f"divide_truncating_{dt}_{sname(a_s)}_{sname(b_s)}", "divide", [a, b],
               "numpy", pythondiv=False, expect_error=False)
        if dt[0] in "iu":
            s.case("arith", f"divide_pythondiv_true_written_{dt}", "divide", [a, b], "numpy",
                   pythondiv=True, expect_error=False)
    # Power with negative integer exponents.
    for dt in ["i8", "i16", "i32", "i64"]:
        a = np.array([2, -2, 1, -1, 5, -1, 3, 1], dtype=NP[dt])
        b = np.array([-1, -1, -3, -3, -2, -2, 0, 4], dtype=NP[dt])
        s.case("arith", f"power_negative_exponent_{dt}", "power", [a, b], "none",
               note="integer Power with a negative exponent truncates 1/x^n toward 0", expect_error=False)
    # Power: f16 through f32, some that round.
    a = np.array([[1.1], [3.7], [0.3]], np.float16)
    b = np.array([2.2, 0.5, 3.0, -1.7], np.float16)
    for dt in ["f16", "f32", "f64"]:
        s.case("arith", f"power_rounding_{dt}", "power", [a.astype(NP[dt]), b.astype(NP[dt])], "numpy", expect_error=False)


def logical_group(s):
    cfgs = [((2, 3), (2, 3), "none", None), ((2, 3), (3,), "numpy", None), ((4, 1), (1, 4), "numpy", None),
            ((), (3,), "numpy", None), ((), (), "numpy", None), ((2, 3, 4), (3, 1), "pdpd", 1),
            ((2, 3, 4), (4,), "pdpd", None), ((0, 2), (2,), "numpy", None),
            ((2, 1, 2, 1, 2, 1), (2, 1, 2, 1, 2), "numpy", None), ((2, 2), (1, 2), "pdpd", 0)]
    for op in LOGICAL:
        for i, (a_s, b_s, ab, axis) in enumerate(cfgs):
            a = vals("bool", a_s, salt=i)
            b = vals("bool", b_s, salt=i + 2)
            s.case("logical", f"{op}_{sname(a_s)}_{ab}_{sname(b_s)}" + (f"_axis{axis}" if axis is not None else ""),
                   op, [a, b], ab, axis, expect_error=False)
    tt = np.array([True, True, False, False])
    ff = np.array([True, False, True, False])
    for op in LOGICAL:
        s.case("logical", f"{op}_truth_table", op, [tt, ff], "none", expect_error=False)


def spec_group(s):
    ovr = "OpenVINO broadcast-rules.rst"
    numpy_examples = [((), ()), ((2, 3), (1,)), ((3,), (2, 3)), ((2, 3, 5), ()),
                      ((2, 1, 5), (1, 4, 5)), ((6, 5), (2, 1, 5)), ((2, 1, 5), (4, 1)),
                      ((3, 2, 1, 4), (5, 4)), ((1, 5, 3), (5, 2, 1, 3)),
                      ((3,), (2,)), ((3, 1, 5), (4, 4, 5))]
    ops_dts = [("add", "f32"), ("multiply", "i32"), ("subtract", "u8"), ("maximum", "f16"),
               ("less", "i64"), ("divide", "f64"), ("squared_difference", "f32"),
               ("floor_mod", "i16"), ("not_equal", "u16"), ("add", "i8"), ("greater_equal", "u32")]
    for i, ((a_s, b_s), (op, dt)) in enumerate(zip(numpy_examples, ops_dts)):
        s.case("spec", f"numpy_example_{i + 1}_{sname(a_s)}_with_{sname(b_s)}_{op}_{dt}", op,
               [vals(dt, a_s, op, 0, i), vals(dt, b_s, op, 1, i + 3)], "numpy",
               note=f"{ovr}, Numpy examples #{i + 1}", expect_error=i >= 9)
    A = (2, 3, 4, 5)
    pdpd_examples = [((3, 4), 1), ((3, 1), 1), ((4, 5), -1), ((4, 5), 2), ((1, 3), 0),
                     ((), -1), ((5,), -1), ((5,), 3)]
    ops_dts = [("add", "f32"), ("multiply", "i32"), ("subtract", "f16"), ("maximum", "i64"),
               ("divide", "f32"), ("equal", "u8"), ("minimum", "u32"), ("power", "f32")]
    for i, ((b_s, axis), (op, dt)) in enumerate(zip(pdpd_examples, ops_dts)):
        s.case("spec", f"pdpd_example_{i + 1}_{sname(b_s)}_axis_{axis}_{op}_{dt}".replace("-", "m"), op,
               [vals(dt, A, op, 0, i), vals(dt, b_s, op, 1, i + 5)], "pdpd", axis,
               write_axis=True, note=f"{ovr}, PDPD examples #{i + 1} (A = (2,3,4,5))",
               expect_error=False)
    s.case("spec", "pdpd_example_9_error_8x1x6x1_with_7x1x5_axis_1", "add",
           [vals("f32", (8, 1, 6, 1)), vals("f32", (7, 1, 5), "add", 1)], "pdpd", 1,
           note=f"{ovr}, PDPD examples #9: only B to A broadcast is supported", expect_error=True)
    # The PDPD example lists also appear with the same op on all shapes (i32 add).
    for i, (b_s, axis) in enumerate(pdpd_examples):
        s.case("spec", f"pdpd_example_{i + 1}_add_i32".replace("-", "m"), "add",
               [vals("i32", A, "add", 0, i), vals("i32", b_s, "add", 1, i)], "pdpd", axis,
               write_axis=True, note=f"{ovr}, PDPD examples #{i + 1}", expect_error=False)


def special_group(s):
    g = "special"
    nan, inf = np.nan, np.inf
    fa = [nan, 1.0, nan, 0.0, -0.0, 1.0, -inf, inf, -0.0, 0.0, inf, -inf, 5.0, -3.0]
    fb = [1.0, nan, nan, -0.0, 0.0, inf, 2.0, inf, -0.0, 0.0, -inf, -inf, 0.0, -0.0]
    for dt in ["f16", "f32", "f64"]:
        a = np.array(fa, NP[dt])
        b = np.array(fb, NP[dt])
        for op in ARITH + COMPARE:
            s.case(g, f"{op}_{dt}_nan_inf_signed_zero", op, [a, b], "none", expect_error=False)
        # subnormals, extremes, overflow to inf, NaN payload
        info = np.finfo(NP[dt])
        sub = info.smallest_subnormal
        a2 = np.array([sub, -sub, info.max, info.max, info.tiny, 1.0, -info.max, 0.1], NP[dt])
        b2 = np.array([sub, sub, info.max, 2.0, 0.5, 3.0, info.max, 0.2], NP[dt])
        for op in ["add", "subtract", "multiply", "divide", "squared_difference", "maximum", "minimum", "floor_mod", "mod"]:
            s.case(g, f"{op}_{dt}_subnormal_max", op, [a2, b2], "numpy", expect_error=False)
        ui = {"f16": np.uint16, "f32": np.uint32, "f64": np.uint64}[dt]
        payload = {"f16": 0x7E01, "f32": 0x7FC00123, "f64": 0x7FF8000000000123}[dt]
        pa = np.array([payload, payload], ui).view(NP[dt])
        pb = np.array([1.0, 2.0], NP[dt])
        for op in ["add", "maximum", "minimum", "multiply"]:
            s.case(g, f"{op}_{dt}_nan_payload", op, [pa, pb], "numpy",
                   note="a NaN with a payload; the expected output keeps the reference's bits",
                   expect_error=False)
    # Integer extremes: wrap.
    for dt in ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]:
        info = np.iinfo(NP[dt])
        mn, mx = int(info.min), int(info.max)
        a = np.array([mx, mn, mx, mn, mx, 0, 1, mx // 2 + 1], NP[dt])
        b = np.array([1, 1 if dt[0] == "u" else -1, mx, mn, 2, mx, mx, 2], NP[dt])
        for op in ["add", "subtract", "multiply", "squared_difference", "maximum", "minimum"] + COMPARE:
            s.case(g, f"{op}_{dt}_extremes", op, [a, b], "none",
                   note="integers wrap (two's complement)", expect_error=False)
        # Division at the extremes (no zero divisor).
        a = np.array([mx, mn, mn, mx, mn + 1, 7, 0, mx], NP[dt])
        b = np.array([mx, mn if mn else 1, 2, 2, mx, mx, mx, 1], NP[dt])
        for op in ["divide", "floor_mod", "mod"]:
            if op == "floor_mod" and info.bits == 64:
                # The reference computes FloorMod in double: 64-bit values past 2**53 come out
                # wrong (i64 MAX mod 2 gives 0); no case pins that, these stay exact.
                lim = 2 ** 52
                a2 = np.array([lim, -lim if mn else 0, lim - 1, 3, -lim + 1 if mn else 1, 7, 0, lim], NP[dt])
                b2 = np.array([lim - 1, 2, -3 if mn else 3, lim, lim, lim, 5, 1], NP[dt])
                s.case(g, f"{op}_{dt}_2pow53", op, [a2, b2], "none", expect_error=False)
                continue
            s.case(g, f"{op}_{dt}_extremes", op, [a, b], "none", expect_error=False)
        if dt[0] == "i":
            for op in ["divide", "floor_mod", "mod"]:
                s.case(g, f"{op}_{dt}_min_by_minus_one", op,
                       [np.array([mn, 6], NP[dt]), np.array([-1, -1], NP[dt])], "none",
                       note="MIN / -1 overflows: it wraps to MIN (and MIN mod -1 is 0)",
                       expect_error=False)
            s.case(g, f"divide_truncating_{dt}_min_by_minus_one", "divide",
                   [np.array([mn, -7], NP[dt]), np.array([-1, 2], NP[dt])], "none", pythondiv=False,
                   note="MIN / -1 overflows: it wraps to MIN", expect_error=False)
    # Signed division / modulo signs, both pythondiv values.
    for dt in ["i8", "i32", "i64"]:
        a = np.array([-7, 7, -7, 7, -6, 6, 0, -1], NP[dt])
        b = np.array([2, -2, -2, 2, 3, -3, -5, 5], NP[dt])
        for op in ["divide", "floor_mod", "mod"]:
            s.case(g, f"{op}_{dt}_signs", op, [a, b], "none", expect_error=False)
        s.case(g, f"divide_truncating_{dt}_signs", "divide", [a, b], "none", pythondiv=False,
               expect_error=False)
    # Float division by zero: IEEE.
    for dt in ["f16", "f32", "f64"]:
        a = np.array([1.0, -1.0, 0.0, -0.0, nan, inf], NP[dt])
        b = np.array([0.0, 0.0, 0.0, -0.0, 0.0, -0.0], NP[dt])
        for op in ["divide", "floor_mod", "mod"]:
            s.case(g, f"{op}_{dt}_by_zero", op, [a, b], "none", expect_error=False)
    # Mixed: f16 rounding (computed in f32, rounded once) and overflow to inf.
    a = np.array([0.1, 1e-7, 65504.0, 2049.0, 0.333, -65504.0], np.float16)
    b = np.array([0.2, 1.0, 32.0, 1.0, 3.0, -32.0], np.float16)
    for op in ["add", "subtract", "multiply", "divide"]:
        s.case(g, f"{op}_f16_rounding", op, [a, b], "none", expect_error=False)
    # Rank 0 with rank 0 on each dtype class, and zero-size outputs on several ops.
    for i, dt in enumerate(NUMERIC):
        op = ARITH[i % len(ARITH)]
        s.case(g, f"{op}_{dt}_zero_size_0x3_with_1", op,
               [vals(dt, (0, 3), op, 0), vals(dt, (1,), op, 1)], "numpy", expect_error=False)
    s.case(g, "add_f32_zero_size_both_0", "add", [vals("f32", (0,)), vals("f32", (0,), "add", 1)],
           "none", expect_error=False)
    s.case(g, "less_i32_zero_size_1x0_with_3x1", "less", [vals("i32", (1, 0)), vals("i32", (3, 1))],
           "numpy", expect_error=False)
    s.case(g, "add_f32_zero_size_0_with_scalar", "add", [vals("f32", (0,)), vals("f32", (), "add", 1)],
           "numpy", expect_error=False)


def none_group(s):
    g = "none"
    shapes = [(), (1,), (5,), (2, 3), (1, 1), (2, 1, 3), (0,), (2, 0, 2), (1, 2, 1, 2, 1),
              (2, 1, 2, 1, 2, 1), (3, 2, 2, 1)]
    ops_ = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "squared_difference",
            "power", "floor_mod", "mod", "less", "logical_or"]
    for i, sh in enumerate(shapes):
        op = ops_[i % len(ops_)]
        dt = "bool" if op in LOGICAL else NUMERIC[(i * 3) % len(NUMERIC)]
        s.case(g, f"{op}_{dt}_{sname(sh)}", op, [vals(dt, sh, op, 0, i), vals(dt, sh, op, 1, i)],
               "none", expect_error=False)
    # every rejection: different rank, different dim, 1 against n, scalar against [1]
    for i, (a_s, b_s) in enumerate([((2, 3), (3,)), ((2, 3), (2, 4)), ((2, 1), (2, 3)),
                                     ((), (1,)), ((3,), (1,)), ((0,), (1,))]):
        op = ["add", "multiply", "equal", "maximum", "logical_and", "subtract"][i]
        dt = "bool" if op in LOGICAL else ["f32", "i32", "u8", "f16", "", "i64"][i]
        s.case("errors", f"none_{op}_{sname(a_s)}_with_{sname(b_s)}", op,
               [vals(dt, a_s, op, 0), vals(dt, b_s, op, 1)], "none",
               note="none: the shapes must be equal", expect_error=True)


def pdpd_group(s):
    g = "pdpd"
    A = (2, 3, 4, 5)
    good = [
        ((3, 4), 1), ((3, 1), 1), ((4, 5), -1), ((4, 5), 2), ((1, 3), 0), ((), -1), ((5,), -1),
        ((5,), 3), ((2, 3, 4, 5), 0), ((2, 3, 4, 5), -1), ((1, 1), 0), ((4, 1), -1), ((4, 1), 2),
        ((), 4), ((), 0), ((2,), 0), ((2, 1, 4), 0), ((1,), 3), ((3, 4, 5), 1), ((3, 4, 5), -1),
        ((1, 3, 1, 5), 0), ((2, 3), 0),
    ]
    ops_ = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "squared_difference",
            "power", "floor_mod", "mod", "equal", "greater", "less_equal", "not_equal"]
    for i, (b_s, axis) in enumerate(good):
        op = ops_[i % len(ops_)]
        dt = NUMERIC[i % len(NUMERIC)]
        s.case(g, f"{op}_{dt}_{sname(b_s)}_axis_{axis}".replace("-", "m"), op,
               [vals(dt, A, op, 0, i), vals(dt, b_s, op, 1, i)], "pdpd", axis,
               write_axis=(i % 2 == 0), expect_error=False)
    # other A ranks
    more = [((), (), 0), ((), (), -1), ((3,), (), 0), ((3,), (3,), 0), ((3,), (1,), 0),
            ((2, 3), (3,), 1), ((2, 1, 4, 1, 3, 2), (4, 1, 3), 2), ((2, 1, 4, 1, 3, 2), (3, 2), -1),
            ((0, 3), (3,), 1), ((0, 3), (1, 3), 0), ((2, 0, 3), (0,), 1), ((4, 2), (4,), 0)]
    for i, (a_s, b_s, axis) in enumerate(more):
        op = ops_[(i + 3) % len(ops_)]
        dt = NUMERIC[(i + 5) % len(NUMERIC)]
        s.case(g, f"{op}_{dt}_{sname(a_s)}_with_{sname(b_s)}_axis_{axis}".replace("-", "m"), op,
               [vals(dt, a_s, op, 0, i), vals(dt, b_s, op, 1, i)], "pdpd", axis,
               write_axis=True, expect_error=False)
    # Trailing 1s of B past A's end: rule 5 drops them; OpenVINO refuses (recorded).
    for i, (b_s, axis) in enumerate([((5, 1), 3), ((5, 1, 1), 3), ((1,), 4)]):
        s.case(g, f"add_f32_trailing_ones_past_end_{sname(b_s)}_axis_{axis}", "add",
               [vals("f32", A, "add", 0, i), vals("f32", b_s, "add", 1, i)], "pdpd", axis,
               note="broadcast-rules.rst PDPD rule 5: B's trailing 1s are ignored for the fit, "
                    "so B fits from this axis (as bcast's PDPD Broadcast planner does)",
               expect_error=False)
    # errors
    bad = [
        ((2, 3, 4, 5), (2, 3, 4, 5, 6), -1, "rank(B) > rank(A)"),
        ((3, 4), (2, 3, 4), 0, "rank(B) > rank(A)"),
        ((2, 3, 4, 5), (3, 4), 0, "dims mismatch at the axis"),
        ((2, 3, 4, 5), (3,), -1, "axis -1 puts B at the last axis: 3 against 5"),
        ((2, 3, 4, 5), (3, 1), -1, "axis -1 = 4 - 2 = 2 (B's own rank): 3 against 4"),
        ((2, 3, 4, 5), (4, 5), -2, "axis < -1"),
        ((2, 3, 4, 5), (4, 5), -3, "axis < -1"),
        ((2, 3, 4, 5), (5,), 4, "axis too large: B runs past A"),
        ((2, 3, 4, 5), (4, 5), 3, "axis too large: B runs past A"),
        ((2, 3, 4, 5), (), 5, "axis past A's rank, even for a scalar B"),
        ((8, 1, 6, 1), (7, 1, 5), 1, "B would need A broadcast (spec example)"),
        ((1, 4), (3,), 0, "A dim 1 against B dim 3: only B stretches"),
        ((2, 1), (1, 3), 0, "A dim 1 against B dim 3: only B stretches"),
        ((2, 3), (2, 3), 1, "B from axis 1 runs past A"),
        ((), (1,), 0, "rank(B) 1 > rank(A) 0"),
        ((2, 1, 3), (2, 3), 0, "A dim 1 against B dim 3"),
        ((0, 3), (2,), 0, "B dim 2 against A dim 0"),
    ]
    for i, (a_s, b_s, axis, why) in enumerate(bad):
        op = ops_[i % len(ops_)]
        dt = NUMERIC[(i * 2) % len(NUMERIC)]
        s.case("errors", f"pdpd_{op}_{dt}_{sname(a_s)}_with_{sname(b_s)}_axis_{axis}".replace("-", "m"), op,
               [vals(dt, a_s, op, 0, i), vals(dt, b_s, op, 1, i)], "pdpd", axis, write_axis=True,
               note=f"PDPD: {why}", expect_error=True)


def errors_group(s):
    g = "errors"
    # numpy rule
    for i, (a_s, b_s) in enumerate([((3,), (2,)), ((3, 1, 5), (4, 4, 5)), ((2, 3), (3, 2)),
                                     ((0,), (2,)), ((2, 1, 2, 1, 2, 1), (3, 1, 1, 3, 1))]):
        op = ["add", "less", "logical_xor", "divide", "power"][i]
        dt = "bool" if op in LOGICAL else ["i16", "f32", "", "u64", "f64"][i]
        s.case(g, f"numpy_{op}_{dt}_{sname(a_s)}_with_{sname(b_s)}", op,
               [vals(dt, a_s, op, 0), vals(dt, b_s, op, 1)], "numpy",
               note="numpy: dims must be equal or 1", expect_error=True)
    # integer division / modulo by zero, every integer dtype
    for dt in ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]:
        for op in ["divide", "floor_mod", "mod"]:
            a = np.array([[4, 1, 0], [7, 2, 3]], NP[dt])
            b = np.array([1, 0, 2], NP[dt])
            s.case(g, f"{op}_{dt}_by_zero", op, [a, b], "numpy",
                   note="integer division by zero (OpenVINO reference's message for Divide)",
                   expect_error=True)
        s.case(g, f"divide_truncating_{dt}_by_zero", "divide",
               [np.array([0, 5], NP[dt]), np.array([0, 1], NP[dt])], "none", pythondiv=False,
               note="integer division by zero, 0 / 0 included", expect_error=True)
    s.case(g, "floor_mod_i32_scalar_zero_divisor", "floor_mod",
           [vals("i32", (2, 2)), np.array(0, np.int32)], "numpy", expect_error=True)
    s.case(g, "divide_i64_zero_divisor_broadcast", "divide",
           [np.array([[5], [6]], np.int64), np.array([1, 2, 0], np.int64)], "numpy", expect_error=True)


def select_group(s):
    g = "select"
    dts = ["bool"] + NUMERIC + ["str"]
    cfgs = [((2, 1, 1, 2), (1, 1, 4, 1), (2,), "numpy", None), ((2, 3), (2, 3), (2, 3), "none", None),
            ((3,), (2, 3), (2, 3), "numpy", None), ((2, 3), (3,), (), "numpy", None),
            ((), (2, 2), (2, 2), "numpy", None), ((2, 3, 4), (2, 3, 4), (3, 4), "pdpd", None),
            ((3, 1), (2, 3, 4), (3, 4), "pdpd", 1), ((3,), (3,), (2, 3), "numpy", None),
            ((2, 3), (2, 1), (1, 3), "numpy", None), ((1, 0), (3, 1), (1,), "numpy", None),
            ((1, 2, 1, 2, 1, 2), (2, 1, 2, 1, 2, 1), (2,), "numpy", None),
            ((), (), (), "numpy", None), ((2,), (2, 3, 2), (2, 3), "pdpd", 0)]
    for i, dt in enumerate(dts):
        for j in range(2):
            c_s, t_s, e_s, ab, axis = cfgs[(2 * i + j) % len(cfgs)]
            if dt == "str":
                t, e = strs(t_s, i), strs(e_s, i + 3)
            else:
                t, e = vals(dt, t_s, "add", 0, i), vals(dt, e_s, "add", 1, i + j)
            c = vals("bool", c_s, salt=i + j)
            s.case(g, f"select_{dt}_{sname(c_s)}_{sname(t_s)}_{sname(e_s)}_{ab}" + (f"_axis{axis}" if axis is not None else ""),
                   "select", [c, t, e], ab, axis, write_axis=True, expect_error=False)
    c = np.array([True, False, True, False])
    s.case(g, "select_spec_cond_2x1x1x2_then_1x1x4x1_else_2", "select",
           [vals("bool", (2, 1, 1, 2)), vals("f32", (1, 1, 4, 1)), vals("f32", (2,), "add", 1)],
           "numpy", note="numpy: all three broadcast together; output [2,1,4,2]", expect_error=False)
    s.case(g, "select_cond_wider_than_then_and_else", "select",
           [vals("bool", (2, 3)), vals("i32", (3,)), vals("i32", (3,), "add", 1)], "numpy",
           note="numpy: cond also broadcasts then and else", expect_error=False)
    nan = np.nan
    s.case(g, "select_f32_nan_signed_zero", "select",
           [c, np.array([nan, -0.0, 0.0, 1.0], np.float32), np.array([0.0, 0.0, -0.0, nan], np.float32)],
           "none", expect_error=False)
    # PDPD: output is then's shape; cond and else go onto it from the axis.
    pd = [((3,), (2, 3, 4), (3,), 1), ((2, 3, 4), (2, 3, 4), (3, 4), -1), ((3, 4), (2, 3, 4), (2, 3, 4), -1),
          ((1,), (2, 3), (2, 3), 0), ((2, 1), (2, 3), (2, 3), 0), ((2, 3), (2, 3), (2, 3), 0),
          ((), (2, 3), (), -1)]
    for i, (c_s, t_s, e_s, axis) in enumerate(pd):
        s.case(g, f"select_pdpd_{sname(c_s)}_{sname(t_s)}_{sname(e_s)}_axis_{axis}".replace("-", "m"),
               "select", [vals("bool", c_s, salt=i), vals("f32", t_s, "add", 0, i), vals("f32", e_s, "add", 1, i)],
               "pdpd", axis, write_axis=True, expect_error=False)
    # errors
    bad = [((2, 1, 1, 2), (1, 1, 4, 1), (2,), "none", None, "none: shapes differ"),
           ((3,), (2, 3), (2, 3), "none", None, "none: shapes differ"),
           ((2, 3), (2, 3), (3, 3), "numpy", None, "numpy: else 3 against 2"),
           ((4,), (2, 3), (2, 3), "numpy", None, "numpy: cond 4 against 3"),
           ((2, 3), (3,), (3,), "pdpd", -1, "pdpd: output is then's shape [3]; cond [2,3] cannot go onto it"),
           ((2, 3), (2, 3), (2, 1), "pdpd", 0, "pdpd: else [2,1] against then: fine; then [2,3] onto itself; cond fine -- no, else dim 1 vs 3 is allowed"),
           ((3,), (2, 3), (2, 3), "pdpd", 0, "pdpd: cond (3) at axis 0 meets 2"),
           ((2, 1, 1, 2), (1, 1, 4, 1), (2,), "pdpd", -1, "pdpd: then's shape is the output; cond [2,1,1,2] cannot go onto [1,1,4,1]"),
           ((2, 3), (2, 1), (2, 3), "pdpd", 0, "pdpd: then is not broadcast; else [2,3] onto then [2,1]")]
    for i, (c_s, t_s, e_s, ab, axis, why) in enumerate(bad):
        try:
            broadcast_inputs([np.zeros(c_s, bool), np.zeros(t_s), np.zeros(e_s)], ab, axis, True)
            continue  # the rule accepts it: not an error case
        except Rejected:
            pass
        s.case("errors", f"select_{ab}_{sname(c_s)}_{sname(t_s)}_{sname(e_s)}" + (f"_axis{axis}" if axis is not None else "").replace("-", "m"),
               "select", [vals("bool", c_s), vals("f32", t_s), vals("f32", e_s, "add", 1)], ab, axis,
               write_axis=True, note=why, expect_error=True)


# ---------------------------------------------------------------------------------------

def write_departures(s):
    """Replaces the generated section of eltwise/README.md: every (op, dtype, auto_broadcast,
    kind) where the CPU plugin departed from the expected value, with one example each."""
    rows = {}
    for key, op, dt, ab, kind, ex in s.departures:
        r = rows.setdefault((op, dt, ab, kind), [0, key, ex])
        r[0] += 1
    lines = ["| op | dtype | auto_broadcast | CPU plugin | cases | first case | example: f(inputs) = CPU, expected (reference unless the case says numpy), numpy |",
             "|---|---|---|---|---|---|---|"]
    for (op, dt, ab, kind), (n, key, ex) in sorted(rows.items()):
        ex = ex.replace("|", "/").replace("np.float64(", "").replace(")", "") if "np.float64" in ex else ex.replace("|", "/")
        lines.append(f"| {op} | {dt} | {ab} | {kind} | {n} | `{key}` | {ex[:200]} |")
    readme = OUT / "README.md"
    if not readme.exists():
        return
    text = readme.read_text(encoding="utf-8")
    begin, end = "<!-- departures:begin -->", "<!-- departures:end -->"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        counts = ", ".join(f"{g} {n}" for g, n in sorted(s.count.items()))
        body = (f"\n{len(s.departures)} departures in {len(rows)} (op, dtype, auto_broadcast, kind) "
                f"groups; cases per group: {counts}; total {sum(s.count.values())}.\n\n" + "\n".join(lines) + "\n")
        readme.write_text(head + begin + body + end + tail, encoding="utf-8")


def main():
    # Only this script's groups: generate_ops.py and generate_paddle.py own the others.
    for group in ["spec", "arith", "compare", "logical", "special", "none", "pdpd", "errors", "select"]:
        if (OUT / group).exists():
            shutil.rmtree(OUT / group)
    OUT.mkdir(exist_ok=True)
    ov = Worker()
    s = Suite(ov)
    try:
        spec_group(s)
        op_dtype_groups(s)
        logical_group(s)
        special_group(s)
        none_group(s)
        pdpd_group(s)
        errors_group(s)
        select_group(s)
    finally:
        ov.close()
    total = sum(s.count.values())
    for group, n in sorted(s.count.items()):
        print(f"{group}: {n} cases")
    print(f"total: {total} cases; OpenVINO calls: {ov.calls}, worker crashes survived: {ov.crashes}")
    print("no reference evaluate (unfolded):", sorted(s.unfolded))
    print("reference vs numpy-emulation disagreements:")
    for d in s.ref_disagree:
        print("  " + d)
    print("surprises:")
    for d in s.surprises:
        print("  " + d)
    write_departures(s)
    (OUT / "departures.json").write_text(json.dumps(
        {"departures": s.departures, "unfolded": sorted(s.unfolded), "counts": s.count,
         "ref_vs_numpy": s.ref_disagree, "surprises": s.surprises}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
