"""The element-wise ops: every case of conformance/eltwise through the Python API, every op of
the table (bit for bit, 1 ulp where the case says so, rejections as exceptions), numpy's
ufuncs on random shapes, out=, and the argument errors."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

import bcast
from conftest import assert_bit_equal, native

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ROOT = Path(os.environ.get("BCAST_CONFORMANCE", Path(__file__).resolve().parents[3] / "conformance"))
ELTWISE = sorted(p.parent for p in (ROOT / "eltwise").rglob("case.json")) if (ROOT / "eltwise").is_dir() else []


def test_suite_found():
    # 1626 cases at the time of writing, 553 of them of the ops ONNX added to the table.
    assert len(ELTWISE) >= 1600, ROOT
    groups = {d.relative_to(ROOT / "eltwise").parts[0] for d in ELTWISE}
    assert {"variadic", "bitwise", "shift", "prelu", "fake_quantize", "onnx_mod", "onnx_div",
            "onnx_pow"} <= groups, groups


def run_case(case, inputs, out=None):
    """The case through the package's function of its op, every input an operand and every
    field of the case (attrs, pythondiv, auto_broadcast, axis) a keyword."""
    name = "select" if case["op"] == "select" else case["eltwise"]
    kw = dict(case.get("attrs", {}))
    for key in ("pythondiv", "auto_broadcast", "axis"):
        if key in case:
            kw[key] = case[key]
    if out is not None:
        kw["out"] = out
    return getattr(bcast, name)(*inputs, **kw)


def within_ulp(actual, expected, ulp):
    a, e = native(actual), native(expected)
    assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, e.dtype, a.shape, e.shape)
    bits = f"i{a.itemsize}"
    ai = a.reshape(-1).view(bits).astype(np.int64)
    ei = e.reshape(-1).view(bits).astype(np.int64)
    af, ef = a.reshape(-1).astype(np.float64), e.reshape(-1).astype(np.float64)
    nan = np.isnan(af) & np.isnan(ef)
    ok = nan | (ai == ei) | ((np.sign(af) == np.sign(ef)) & (np.abs(ai - ei) <= ulp))
    assert ok.all(), (a.reshape(-1)[~ok][:5], e.reshape(-1)[~ok][:5])


@pytest.mark.parametrize("folder", ELTWISE, ids=[str(d.relative_to(ROOT)) for d in ELTWISE])
def test_eltwise_case(folder):
    case = json.loads((folder / "case.json").read_text())
    assert case["op"] in ("eltwise", "select")
    inputs = [np.load(folder / f) for f in case["inputs"]]
    if case.get("error"):
        # A broken rule, a zero divisor or a bad attribute value: BroadcastError; a type
        # the op does not take, or no operand at all: TypeError.
        with pytest.raises((bcast.BroadcastError, TypeError)):
            run_case(case, inputs)
        return
    (want,) = [np.load(folder / f) for f in case["outputs"]]
    got = run_case(case, inputs)
    if want.ndim == 0 and case["op"] != "select":
        # numpy's ufuncs return a scalar for a 0-d result (np.where a 0-d array).
        assert isinstance(got, np.generic), type(got)
        got = np.asarray(got)
    else:
        assert isinstance(got, np.ndarray) and got.flags.c_contiguous and got.flags.writeable
    if case.get("ulp"):
        within_ulp(got, want, case["ulp"])
    else:
        assert_bit_equal(got, want)
    if want.dtype.kind != "U":
        out = np.empty(want.shape, dtype=native(want).dtype)
        assert run_case(case, inputs, out=out) is out
        if case.get("ulp"):
            within_ulp(out, want, case["ulp"])
        else:
            assert_bit_equal(out, want)


def shapes_pair():
    """Two numpy-compatible shapes (rank 0-4, dims 0-4)."""

    @st.composite
    def pair(draw):
        full = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
        out = []
        for _ in range(2):
            r = draw(st.integers(0, len(full)))
            tail = full[len(full) - r :]
            out.append(tuple(d if draw(st.booleans()) else 1 for d in tail))
        return out

    return pair()


@settings(max_examples=150, deadline=None)
@given(shapes=shapes_pair(), dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**32 - 1))
def test_random_against_numpy(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shapes[0]).astype(dtype)
    b = rng.standard_normal(shapes[1]).astype(dtype)
    if rng.integers(2) and a.ndim >= 2:
        a = np.ascontiguousarray(a.swapaxes(0, 1)).swapaxes(0, 1)  # C data, F-ish view
    for ours, theirs in ((bcast.add, np.add), (bcast.multiply, np.multiply), (bcast.maximum, np.maximum)):
        assert_bit_equal(ours(a, b), theirs(a, b))


def test_strided_inputs_are_read_in_place():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)[::-1, ::2]  # reversed, stepped
    b = np.arange(4, dtype=np.float32)[:, None].T.T  # (4, 1), a view
    assert_bit_equal(bcast.subtract(a, b), a - b)
    assert_bit_equal(bcast.less(a.T, np.float32(3)), a.T < 3)


def test_out():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = np.full((2, 3), -1, np.int32)
    assert bcast.add(a, np.int32(1) * np.ones(3, np.int32), out=out) is out
    assert_bit_equal(out, a + 1)
    flags = np.zeros((2, 3), bool)
    assert bcast.greater(a, np.array([1, 1, 1], np.int32), out=flags) is flags
    assert_bit_equal(flags, a > 1)
    # a non-contiguous out
    big = np.zeros((2, 6), np.int32)
    view = big[:, ::2]
    bcast.multiply(a, np.array(2, np.int32), out=view)
    assert_bit_equal(big[:, ::2], a * 2)
    sel = np.empty((2, 3), np.int32)
    assert bcast.select(a > 2, a, np.array(-1, np.int32), out=sel) is sel
    assert_bit_equal(sel, np.where(a > 2, a, -1).astype(np.int32))
    with pytest.raises(TypeError):
        bcast.add(a, a, out=np.empty((2, 3), np.float32))
    with pytest.raises(TypeError):
        bcast.equal(a, a, out=np.empty((2, 3), np.int32))
    with pytest.raises(bcast.BroadcastError):
        bcast.add(a, a, out=np.empty((3, 2), np.int32))
    with pytest.raises(ValueError):
        bcast.add(a, a, out=a)  # overlaps an input


def test_rules_and_errors():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    assert_bit_equal(bcast.add(a, np.array([10, 20], np.int64)[:, None] * 0 + 1), a + 1)
    # pdpd: b on a's axis 0
    b = np.array([100, 200], np.int64)
    assert_bit_equal(bcast.add(a, b, auto_broadcast="pdpd", axis=0), a + b[:, None])
    with pytest.raises(bcast.BroadcastError, match="pdpd"):
        bcast.add(a, b, auto_broadcast="pdpd")  # -1: [2] against a's last axis 3
    with pytest.raises(bcast.BroadcastError, match="none"):
        bcast.add(a, a[0], auto_broadcast="none")
    with pytest.raises(bcast.BroadcastError, match="division by zero"):
        bcast.divide(a, np.array([1, 0, 2], np.int64))
    assert_bit_equal(bcast.divide(np.array([-7]), np.array([2]), pythondiv=False), np.array([-3]))
    with pytest.raises(bcast.BroadcastError):
        bcast.add(a, a.astype(np.int32))  # dtypes differ
    with pytest.raises(TypeError):
        bcast.logical_and(a, a)
    with pytest.raises(TypeError):
        bcast.add(np.array([True]), np.array([False]))
    with pytest.raises(TypeError):
        bcast.select(np.array([1]), a, a)  # cond not bool
    with pytest.raises(ValueError):
        bcast.add(a, a, auto_broadcast="bidirectional")
    with pytest.raises(TypeError):
        bcast.add(a, a, auto_broadcast="numpy", axis=0)


def test_select_strings():
    got = bcast.select(np.array([True, False]), np.array(["ab", "c"]), np.array(["xyz"]))
    assert got.tolist() == ["ab", "xyz"]


def test_attributes_are_checked():
    x = np.ones(3, np.float32)
    limits = (np.float32(0), np.float32(1), np.float32(0), np.float32(1))
    for levels in (1, 0, -3, 2**64):
        with pytest.raises(bcast.BroadcastError, match="levels"):
            bcast.fake_quantize(x, *limits, levels=levels)
    with pytest.raises(TypeError, match="levels"):
        bcast.fake_quantize(x, *limits, levels="8")
    with pytest.raises(TypeError):
        bcast.fake_quantize(x, *limits)  # levels is required, as in OpenVINO
    u = np.array([1, 2], np.uint8)
    with pytest.raises(ValueError, match="LEFT"):
        bcast.bit_shift(u, u, direction="UP")
    with pytest.raises(TypeError):
        bcast.bit_shift(u, u)  # direction is required, as in ONNX
    assert bcast.bit_shift(u, u, direction="right").tolist() == [0, 0]
    with pytest.raises(ValueError, match="0 or 1"):
        bcast.onnx_mod(u, u, fmod=2)
    assert bcast.onnx_mod(np.array([-7]), np.array([2]), fmod=True).tolist() == [-1]
    with pytest.raises(TypeError, match="has no attribute"):
        bcast._eltwise("add", (u, u), None, {"levels": 3})
    with pytest.raises(ValueError, match="unknown"):
        bcast._eltwise("relu", (u,))


def test_variadic_and_five_operand_scalars_as_numpy():
    a = np.array([1.0, 2.0], np.float32)
    got = bcast.sum(a, 1, 0.5)
    assert got.dtype == np.float32 and got.tolist() == [2.5, 3.5]
    # a Python float makes integer arrays float64, as np.result_type does under NEP 50
    i = np.array([1, 2], np.int64)
    got = bcast.max(i, 1.5, i)
    assert got.dtype == np.float64 and got.tolist() == [1.5, 2.0]
    assert bcast.max(3, 1.0).dtype == np.float64 and bcast.max(3, 4) == 4
    assert isinstance(bcast.mean(np.float32(1), np.float32(2)), np.float32)
    with pytest.raises(OverflowError):
        bcast.max(np.array([1], np.uint8), 300)
    with pytest.raises(TypeError):
        bcast.sum(np.array([1, 2]), np.array([3, 4]))  # ONNX Sum: floats only
    with pytest.raises(bcast.BroadcastError):
        bcast.sum(a, a.astype(np.float64))
    out = np.empty((2, 2), np.float32)
    assert bcast.sum(a, a[:, None], out=out) is out and out.tolist() == [[2, 3], [3, 4]]
    q = bcast.fake_quantize(np.array([0.2, 0.6], np.float32), 0, 1, 0.0, 1.0, levels=3)
    assert q.dtype == np.float32 and q.tolist() == [0.0, 0.5]
