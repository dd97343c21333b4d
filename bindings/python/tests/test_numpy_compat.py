"""What numpy users expect of the element-wise ops, checked against numpy itself: Python scalars
typed as numpy 2 types them (NEP 50), scalar results, `out` as numpy's third positional
argument, and string widths kept."""

import warnings

import inspect

import numpy as np
import pytest

import bcast
from conftest import assert_bit_equal

NUMPY2 = int(np.__version__.split(".")[0]) >= 2
needs_numpy2 = pytest.mark.skipif(not NUMPY2, reason="NEP 50 is numpy 2's promotion")

DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64,
]

# Python scalars around every dtype's bounds and float16's, float32's and float64's limits.
INTS = [
    0, 1, -1, 7, 127, 128, -128, -129, 255, 256, 2**15, 2**16, -2**31 - 1, 2**31, 2**32,
    2**53 + 1, 2**60 + 2**36 + 1, 2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**64 - 1, 2**64,
    10**30, -10**30, 10**400,
]
FLOATS = [
    0.0, -0.0, 1.5, -2.5, 0.1, 65504.0, 65519.0, 65520.0, 1e10, 3.5e38, 1e300, 5e-324,
    float("nan"), float("inf"), -float("inf"),
]
SCALARS = INTS + FLOATS + [True, False]

ARITH = ["add", "subtract", "multiply"]
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


def array_of(dtype):
    """Values of `dtype` including its bounds, so that wrapping and rounding show."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([False, True, True])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array([info.min, info.max, 0, 1, 100 % (info.max + 1)], dtype=dt)
    return np.array([0.0, -0.0, 1.5, -3.0, np.inf, np.nan, 65504.0], dtype=dt)


def outcome(f, *args, **kw):
    """(result, None) or (None, the exception), numpy's warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(*args, **kw), None
        except Exception as e:  # noqa: BLE001 -- compared by type below
            return None, e


def same(got, want):
    """Same type (numpy scalar or array), dtype, shape and values (NaN equals NaN)."""
    assert type(got) is type(want), (type(got), type(want))
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        nan = np.isnan(got) & np.isnan(want)
        got, want = np.where(nan, 0, got).astype(want.dtype), np.where(nan, 0, want).astype(want.dtype)
    assert_bit_equal(got, want)


def bool_arith_refused(name, args):
    """bcast refuses bool operands in arithmetic where numpy computes (a documented
    departure, test_departures.py): both operands are bools (Python's or numpy's)."""
    return name not in COMPARE and all(np.asarray(x).dtype == np.bool_ for x in args)


@needs_numpy2
@pytest.mark.parametrize("name", ARITH + COMPARE)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_array_with_python_scalar(name, dtype):
    arr = array_of(dtype)
    for v in SCALARS:
        for args in ((arr, v), (v, arr)):
            want, want_err = outcome(getattr(np, name), *args)
            got, got_err = outcome(getattr(bcast, name), *args)
            where = (name, np.dtype(dtype).name, args)
            if want_err is not None:
                assert got_err is not None and type(got_err) is type(want_err), (where, got_err, want_err)
            elif bool_arith_refused(name, args):
                assert isinstance(got_err, TypeError), (where, got_err)
            else:
                assert got_err is None, (where, got_err)
                same(got, want)


@needs_numpy2
def test_the_issues_cases():
    o = np.empty(3, np.float32)
    assert bcast.add(np.ones(3, np.float32), 1.0, out=o) is o
    assert o.tolist() == [2.0, 2.0, 2.0]
    same(bcast.add(np.ones(3, np.float32), 1.0), np.ones(3, np.float32) + 1.0)
    same(bcast.add(np.arange(3, dtype=np.int8), 1.0), np.add(np.arange(3, dtype=np.int8), 1.0))
    with pytest.raises(OverflowError, match="300 out of bounds for uint8"):
        bcast.add(np.arange(3, dtype=np.uint8), 300)
    same(bcast.less(np.arange(3, dtype=np.uint8), 300), np.less(np.arange(3, dtype=np.uint8), 300))


@needs_numpy2
@pytest.mark.parametrize("name", ARITH + COMPARE + ["maximum", "minimum", "divide"])
def test_two_scalars_give_numpys_scalar(name):
    ours = getattr(bcast, name)
    theirs = getattr(np, name)
    if name == "divide":
        # bcast.divide is numpy's floor_divide on integers, numpy's divide on floats.
        def theirs(a, b):
            q = np.floor_divide(a, b)
            return np.divide(a, b) if q.dtype.kind == "f" else q

    pairs = [
        (3, 2), (3, 2.5), (2.5, 3), (True, 2), (2, True), (3, -2**63), (1, 2**63), (2**64, 1),
        (2**63, 2**64), (2**64, 2**65), (-2**63 - 1, 1), (2**64 - 1, -1), (True, 2**63), (True, False),
        (1.5, 2**64),
        (1.0, 10**400), (np.float32(1.5), 2.0), (2, np.float32(1.5)), (np.int8(100), 100),
        (np.int8(100), 200), (np.uint16(7), -1), (np.float16(1), 1e10), (np.float64(2), np.float64(3)),
        (np.array(2.0), np.array(3.0)), (np.array(5, np.uint8), 3), (np.array(5, np.uint8), np.uint8(3)),
    ]
    for a, b in pairs:
        want, want_err = outcome(theirs, a, b)
        got, got_err = outcome(ours, a, b)
        if want_err is not None:
            assert type(got_err) is type(want_err), (name, a, b, got_err, want_err)
        elif bool_arith_refused(name, (a, b)):
            assert isinstance(got_err, TypeError), (name, a, b, got_err)
        else:
            assert got_err is None, (name, a, b, got_err)
            same(got, want)


@needs_numpy2
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_select_with_python_scalars(dtype):
    arr = array_of(dtype)
    cond = np.arange(arr.size) % 2 == 0
    for v in SCALARS:
        for args in ((cond, arr, v), (cond, v, arr), (cond, v, 2), (cond, 1.5, v), (True, v, arr)):
            want, want_err = outcome(np.where, *args)
            got, got_err = outcome(bcast.select, *args)
            where = (np.dtype(dtype).name, args)
            if want_err is not None:
                assert type(got_err) is type(want_err), (where, got_err, want_err)
            elif isinstance(v, int) and not isinstance(v, bool) and want.dtype.kind in "iu" and not (
                np.iinfo(want.dtype).min <= v <= np.iinfo(want.dtype).max
            ):
                # np.where wraps an int its dtype cannot hold; bcast raises as numpy's ufuncs
                # do (a documented departure, test_departures.py).
                assert isinstance(got_err, OverflowError), (where, got_err)
            else:
                assert got_err is None, (where, got_err)
                same(got, want)


def test_python_bool_condition_and_zero_d_select():
    same(bcast.select(True, np.arange(3), 7), np.where(True, np.arange(3), 7))
    same(bcast.select(np.array(False), 1, 2.0), np.where(np.array(False), 1, 2.0))  # 0-d array


def test_strong_operands_are_not_promoted():
    a = np.ones(3, np.float32)
    for other in (np.float64(1.0), np.array(1.0), np.array([1.0]), np.int32(1)):
        with pytest.raises(bcast.BroadcastError, match="differ"):
            bcast.add(a, other)
    # int subclasses and float subclasses are strong in numpy 2, as bool is
    class MyInt(int):
        pass

    with pytest.raises(bcast.BroadcastError, match="differ"):
        bcast.add(np.ones(3, np.uint8), MyInt(3))
    same(bcast.add(np.ones(3, np.int64), MyInt(3)), np.ones(3, np.int64) + MyInt(3))
    same(bcast.add(np.ones(3, np.float32), np.float32(2)), np.ones(3, np.float32) + np.float32(2))


def test_other_python_objects():
    with pytest.raises(TypeError):
        bcast.add(np.ones(3), 1j)
    with pytest.raises(TypeError):
        bcast.add(np.ones(3), None)
    same(bcast.add(np.ones(3), [1.0, 2.0, 3.0]), np.ones(3) + np.array([1.0, 2.0, 3.0]))
    # a Python int against strings: the library's refusal
    with pytest.raises((TypeError, bcast.BroadcastError)):
        bcast.add(np.array(["a"]), 1)


def test_bfloat16_takes_python_scalars():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16)
    got = bcast.add(x, 1)
    assert got.dtype == ml_dtypes.bfloat16 and got.astype(np.float32).tolist() == [2.5, -1.0]
    got = bcast.multiply(x, 0.5)
    assert got.dtype == ml_dtypes.bfloat16 and got.astype(np.float32).tolist() == [0.75, -1.0]


# --- out as numpy's third positional argument ---------------------------------------------


def test_out_positional_or_keyword_for_every_op():
    a = np.array([[6], [9]], np.int32)
    b = np.array([2, 3, 4], np.int32)
    for name in ARITH + COMPARE + ["maximum", "minimum", "squared_difference", "power", "floor_mod", "mod", "divide"]:
        f = getattr(bcast, name)
        want = f(a, b)
        for call in (lambda o: f(a, b, o), lambda o: f(a, b, out=o)):
            o = np.empty_like(want)
            assert call(o) is o, name
            assert_bit_equal(o, want)
        assert_bit_equal(f(a, b, None), want)
    t, e = np.array([True, False]), np.array([False, False])
    for name in ("logical_and", "logical_or", "logical_xor"):
        o = np.empty(2, bool)
        assert getattr(bcast, name)(t, e, o) is o
        assert_bit_equal(o, getattr(np, name)(t, e))
    o = np.empty((2, 3), np.int32)
    assert bcast.select(a > 7, a, b, o) is o
    assert_bit_equal(o, np.where(a > 7, a, b))
    o = np.empty((2, 3), np.int32)
    assert bcast.divide(a, b, o, pythondiv=False) is o
    assert_bit_equal(o, a // b)  # positive operands: truncating equals flooring


def test_zero_d_out_is_returned_not_a_scalar():
    o = np.empty((), np.float64)
    assert bcast.add(1.0, 2.0, o) is o and o[()] == 3.0


def test_auto_broadcast_is_keyword_only():
    a, b = np.ones((2, 3)), np.ones(2)
    with pytest.raises(TypeError, match="auto_broadcast='pdpd'"):
        bcast.add(a, b, "pdpd")
    with pytest.raises(TypeError, match="auto_broadcast='numpy'"):
        bcast.select(np.array([True]), a, a, "numpy")
    with pytest.raises(TypeError):
        bcast.add(a, b, None, "pdpd")
    assert_bit_equal(bcast.add(a, b, auto_broadcast="pdpd", axis=0), a + b[:, None])
    assert_bit_equal(bcast.add(a=a, b=a, out=None, auto_broadcast="none"), a + a)
    for f in (bcast.add, bcast.less, bcast.divide, bcast.logical_or):
        assert str(inspect.signature(f)).startswith("(a, b, out=None, *,"), inspect.signature(f)
    assert str(inspect.signature(bcast.select)).startswith("(cond, then, else_, out=None, *,")


# --- strings keep their width ---------------------------------------------------------------


def test_string_width_is_kept():
    x = np.array(["a", "bc"], "<U10")
    assert bcast.broadcast(x, (3, 2)).dtype == np.broadcast_to(x, (3, 2)).dtype == np.dtype("<U10")
    assert bcast.broadcast(x[:1], (2,), "explicit", axes_mapping=[0]).dtype == np.dtype("<U10")
    assert bcast.broadcast(np.array("z", ">U7"), (2,)).dtype == np.dtype("<U7")
    got = bcast.broadcast_arrays(x, np.array(["xyz"], "<U4"), np.array([[1], [2]]))
    want = np.broadcast_arrays(x, np.array(["xyz"], "<U4"), np.array([[1], [2]]))
    assert [g.dtype for g in got] == [w.dtype for w in want]
    cond = np.array([True, False])
    for t, e in ((x, np.array(["q"], "<U3")), (np.array(["q"], "<U3"), x), (x, "xyz"), ("xyz", x)):
        got, want = bcast.select(cond, t, e), np.where(cond, t, e)
        assert got.dtype == want.dtype and got.tolist() == want.tolist(), (t, e)
    assert bcast.select(cond, np.array("", "<U5"), np.array("", "<U2")).dtype == np.dtype("<U5")
