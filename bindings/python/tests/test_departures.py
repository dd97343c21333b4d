"""Where bcast's element-wise ops differ from numpy on purpose (OpenVINO's semantics), checked
against numpy itself so that the documentation cannot go stale.

Every op runs on a grid of special values (bounds, zeros of both signs, infinities, NaN,
subnormals, tiny and huge magnitudes) for every dtype, against its numpy spelling. Each
documented departure names the elements it covers and what bcast gives there, computed by an
independent reference (the formula in the docs, in numpy or Python); the test asserts that
bcast gives exactly that, that numpy still gives something else somewhere (the departure is
real), and that every element outside the departures equals numpy's, bit for bit. Each
departure's key phrase must appear in the op's docstring and in bindings/python/README.md.
"""

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import bcast

README = Path(__file__).resolve().parents[1] / "README.md"

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]


def values(dtype):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = [0, 1, 2, 3, 5, 7, 10, 62, 63, 64, -1, -2, -3, -7, info.min, info.max, info.min + 1, info.max - 1]
        return np.array(sorted({x for x in v if info.min <= x <= info.max}), dtype=dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array(
            [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0, -7.0, 7.0, 2.5, -2.5, 1e-3, 0.1, 1e30, 1e308,
             65504.0, 1e-40, 5e-324, np.inf, -np.inf, np.nan],
            dtype=dt,
        )


def grid(dtype):
    v = values(dtype)
    a, b = np.meshgrid(v, v, indexing="ij")
    return a.ravel(), b.ravel()


def bits_equal(x, y):
    """Elementwise: same bits, or both NaN."""
    x, y = np.asarray(x), np.asarray(y)
    same = x.view(f"u{x.itemsize}") == y.view(f"u{y.itemsize}") if x.dtype.kind != "b" else x == y
    if x.dtype.kind == "f":
        same |= np.isnan(x) & np.isnan(y)
    return same


def quiet(f, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kw)


# --- the numpy spelling of each op --------------------------------------------------------

NUMPY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "maximum": np.maximum, "minimum": np.minimum,
    "squared_difference": lambda a, b: np.square(np.subtract(a, b)),
    "power": np.power, "floor_mod": np.remainder, "mod": np.fmod,
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}


def numpy_divide(a, b):
    """bcast.divide's numpy spelling: floor_divide on integers, divide on floats."""
    return (np.divide if a.dtype.kind == "f" else np.floor_divide)(a, b)


NUMPY["divide"] = numpy_divide


# --- the departures: (ops, dtypes, which elements, what bcast gives there, doc phrase) -----


def py_pow_truncated(dtype):
    """Integer power as OpenVINO's reference: pow in float64 (the C library's, as Python's
    float ** is), truncated toward zero, saturated at the type's bounds."""
    info = np.iinfo(dtype)

    def one(x, y):
        x, y = float(x), float(y)
        try:
            p = x**y
        except ZeroDivisionError:  # 0 ** negative: C's pow gives +inf
            p = math.inf
        except OverflowError:  # C's pow gives inf of the sign an odd exponent keeps
            p = -math.inf if x < 0 and int(y) % 2 else math.inf
        if isinstance(p, complex) or math.isnan(p):
            return 0
        if math.isinf(p):
            return info.max if p > 0 else info.min
        return min(max(int(p), info.min), info.max)

    return lambda a, b: np.array([one(x, y) for x, y in zip(a.tolist(), b.tolist())], dtype=dtype)


def exact_pow_in_range(dtype):
    """Where integer a ** b, computed exactly, has a non-negative exponent and a result inside
    the type, both at most 2**53 (float64 holds them): numpy's exact power and bcast's agree
    there."""
    info = np.iinfo(dtype)

    def one(x, y):
        if y < 0 or y > 2**53:  # float64 holds exponents up to 2**53 exactly
            return False
        if abs(x) > 1 and y > 128:
            return False
        p = x**y
        return info.min <= p <= info.max and abs(p) <= 2**53

    return lambda a, b: np.array([one(x, y) for x, y in zip(a.tolist(), b.tolist())])


def floor_mod_formula(dtype):
    """OpenVINO's FloorMod on floats: a - b * floor(a / b) in float64, rounded to the type."""
    return lambda a, b: quiet(
        lambda: (a.astype(np.float64) - b.astype(np.float64) * np.floor(a.astype(np.float64) / b.astype(np.float64))).astype(dtype)
    )


def squared_difference_once(dtype):
    """float16 squared difference computed in float32 and rounded once."""
    return lambda a, b: quiet(lambda: ((a.astype(np.float32) - b.astype(np.float32)) ** 2).astype(dtype))


def signed_zero_pair(a, b):
    return (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))


DEPARTURES = [
    # maximum/minimum: std::max / std::min
    dict(ops=["maximum", "minimum"], dtypes=FLOATS, doc="NaN",
         where=lambda a, b: np.isnan(b) & ~np.isnan(a), ours=lambda a, b: a),
    dict(ops=["maximum", "minimum"], dtypes=[np.float32, np.float64], doc="signed zeros",
         where=signed_zero_pair, ours=lambda a, b: a),
    # power on integers: in float64, truncated, saturated
    dict(ops=["power"], dtypes=INTS, doc="computed in float64 and truncated",
         where=lambda a, b: ~exact_pow_in_range(a.dtype)(a, b), ours=lambda a, b: py_pow_truncated(a.dtype)(a, b)),
    # floor_mod on floats: the formula in float64
    dict(ops=["floor_mod"], dtypes=FLOATS, doc="a - b * floor(a / b)",
         where=lambda a, b: ~bits_equal(floor_mod_formula(a.dtype)(a, b), quiet(np.remainder, a, b)),
         ours=lambda a, b: floor_mod_formula(a.dtype)(a, b)),
    # squared_difference in float16: rounded once
    dict(ops=["squared_difference"], dtypes=[np.float16], doc="rounds once",
         where=lambda a, b: ~bits_equal(squared_difference_once(a.dtype)(a, b), quiet(NUMPY["squared_difference"], a, b)),
         ours=lambda a, b: squared_difference_once(a.dtype)(a, b)),
]

# Float power: the C library's pow against numpy's, which is vectorised on some CPUs: within
# 1 ulp, bit-equal where numpy uses the same library (so no "still differs" check).
POWER_ULP = 1

OPS = list(NUMPY)


def integer_zero_divisor(name, a, b):
    return name in ("divide", "mod", "floor_mod") and a.dtype.kind in "iu"


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_equals_numpy_except_where_documented(name, dtype):
    a, b = grid(dtype)
    if integer_zero_divisor(name, a, b):
        keep = b != 0  # a zero divisor raises: test_integer_zero_divisor_raises
        a, b = a[keep], b[keep]
    got = getattr(bcast, name)(a, b)
    covered = np.zeros(a.shape, bool)
    for d in DEPARTURES:
        if name not in d["ops"] or dtype not in d["dtypes"]:
            continue
        region = d["where"](a, b)
        ours = d["ours"](a, b)
        assert bits_equal(got[region], ours[region]).all(), (d["doc"], a[region][:5], b[region][:5])
        # The departure is real: numpy gives something else there (numpy may raise on
        # the region as a whole: a negative integer power).
        try:
            theirs = quiet(NUMPY[name], a[region], b[region])
            assert (~bits_equal(theirs, ours[region])).any(), d["doc"]
        except ValueError:
            assert name == "power"
        covered |= region
    want_a, want_b = a[~covered], b[~covered]
    want = quiet(NUMPY[name], want_a, want_b)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if name == "power" and dtype in FLOATS:
        same = bits_equal(got[~covered], want)
        g, w = got[~covered][~same].astype(np.float64), want[~same].astype(np.float64)
        ulp = np.abs(np.spacing(w.astype(dtype)).astype(np.float64))
        assert (np.abs(g - w) <= POWER_ULP * ulp).all(), (want_a[~same][:5], want_b[~same][:5], g[:5], w[:5])
        return
    bad = ~bits_equal(got[~covered], want)
    assert not bad.any(), (want_a[bad][:5], want_b[bad][:5], got[~covered][bad][:5], want[bad][:5])


def test_bool_operands_compare_as_numpy_and_logical_ops_equal_numpy():
    a, b = np.array([False, False, True, True]), np.array([False, True, False, True])
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                 "logical_and", "logical_or", "logical_xor"):
        np.testing.assert_array_equal(getattr(bcast, name)(a, b), getattr(np, name)(a, b))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "power", "divide", "mod", "floor_mod"])
def test_bool_arithmetic_refused(name):
    a, b = np.array([False, True]), np.array([True, True])
    quiet(NUMPY[name], a, b)  # numpy computes it
    with pytest.raises(TypeError):
        getattr(bcast, name)(a, b)
    assert "bool operands are refused" in " ".join(getattr(bcast, name).__doc__.split()).lower()


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_take_bool_only(name):
    a, b = np.array([0, 2, -1]), np.array([1, 0, 3])
    want = getattr(np, name)(a, b)  # numpy: by truthiness
    with pytest.raises(TypeError):
        getattr(bcast, name)(a, b)
    # the documented spelling
    np.testing.assert_array_equal(getattr(bcast, name)(bcast.not_equal(a, 0), bcast.not_equal(b, 0)), want)
    assert "bcast.not_equal(a, 0)" in getattr(bcast, name).__doc__


@pytest.mark.parametrize("name", ["divide", "mod", "floor_mod"])
@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_integer_zero_divisor_raises(name, dtype):
    a, b = np.array([7, 0], dtype), np.array([0, 0], dtype)
    assert (quiet(NUMPY[name], a, b) == 0).all()  # numpy: 0, with a warning
    with pytest.raises(bcast.BroadcastError, match="division by zero"):
        getattr(bcast, name)(a, b)


def test_integer_divide_is_floor_divide_not_true_divide():
    a, b = np.array([-7, 7, -8]), np.array([2, 2, -3])
    assert np.divide(a, b).dtype == np.float64  # numpy's divide is true division
    np.testing.assert_array_equal(bcast.divide(a, b), np.floor_divide(a, b))
    # the documented spelling of numpy's true quotient
    np.testing.assert_array_equal(bcast.divide(a.astype(np.float64), b.astype(np.float64)), np.divide(a, b))
    # pythondiv=False truncates toward zero (C's /), which numpy has no ufunc for
    trunc = np.array([int(x / y) for x, y in zip(a.tolist(), b.tolist())])
    np.testing.assert_array_equal(bcast.divide(a, b, pythondiv=False), trunc)


def test_mod_is_fmod_not_numpys_mod():
    a, b = np.array([-7.0, 7.0, -7.5]), np.array([2.0, -2.0, 2.0])
    np.testing.assert_array_equal(bcast.mod(a, b), np.fmod(a, b))
    assert (np.mod(a, b) != np.fmod(a, b)).any()  # numpy's mod is floor_mod
    np.testing.assert_array_equal(bcast.floor_mod(a, b), np.mod(a, b))


def test_integer_negative_power():
    a, b = np.array([2, 1, -1, 3]), np.array([-1, -1, -1, -2])
    with pytest.raises(ValueError):
        np.power(a, b)
    np.testing.assert_array_equal(bcast.power(a, b), [0, 1, -1, 0])


def test_arrays_of_different_dtypes_are_not_promoted():
    a, b = np.ones(3, np.float32), np.ones(3, np.float64)
    assert np.add(a, b).dtype == np.float64
    with pytest.raises(bcast.BroadcastError, match="differ"):
        bcast.add(a, b)
    t = np.result_type(a, b)
    np.testing.assert_array_equal(bcast.add(a.astype(t), b.astype(t)), np.add(a, b))


def test_out_must_have_the_result_dtype():
    a = np.ones(3, np.float32)
    out = np.empty(3, np.float64)
    assert np.add(a, a, out=out) is out  # numpy casts into out
    with pytest.raises(TypeError):
        bcast.add(a, a, out=out)


def test_select_departures():
    cond = np.array([True, False])
    # np.where wraps a Python int its dtype cannot hold; bcast raises as numpy's ufuncs do
    assert np.where(cond, np.ones(2, np.uint8), 300).tolist() == [1, 44]
    with pytest.raises(OverflowError):
        bcast.select(cond, np.ones(2, np.uint8), 300)
    # cond must be bool (numpy: truthiness)
    icond = np.array([1, 0])
    np.where(icond, 1.0, 2.0)
    with pytest.raises(TypeError):
        bcast.select(icond, 1.0, 2.0)
    np.testing.assert_array_equal(bcast.select(bcast.not_equal(icond, 0), 1.0, 2.0), np.where(icond, 1.0, 2.0))
    # arrays of different dtypes are not promoted
    assert np.where(cond, np.ones(2, np.float32), np.ones(2)).dtype == np.float64
    with pytest.raises(bcast.BroadcastError):
        bcast.select(cond, np.ones(2, np.float32), np.ones(2))


def test_bfloat16_with_a_python_float_stays_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([1.5], ml_dtypes.bfloat16)
    ours = bcast.add(x, 1.0)
    # bcast keeps the array's type, NEP 50's rule for every other float type.
    assert ours.dtype == ml_dtypes.bfloat16 and ours.astype(np.float32).tolist() == [2.5]
    # ml_dtypes before 0.7 computed in float32 (the departure the README states); from 0.7 on
    # numpy keeps bfloat16 too, and then the two agree value for value.
    theirs = np.add(x, 1.0)
    major, minor = (int(part) for part in ml_dtypes.__version__.split(".")[:2])
    if (major, minor) < (0, 7):
        assert theirs.dtype == np.float32
    else:
        assert theirs.dtype == ml_dtypes.bfloat16
        np.testing.assert_array_equal(theirs.view(np.uint16), ours.view(np.uint16))


# --- the docs name every departure ----------------------------------------------------------


def normalized(text):
    return " ".join(text.split())


@pytest.mark.parametrize("departure", DEPARTURES, ids=lambda d: d["doc"])
def test_departures_are_documented(departure):
    readme = normalized(README.read_text(encoding="utf-8"))
    assert departure["doc"] in readme, departure["doc"]
    for name in departure["ops"]:
        assert departure["doc"] in normalized(getattr(bcast, name).__doc__), (name, departure["doc"])


def test_readme_names_the_other_departures():
    readme = normalized(README.read_text(encoding="utf-8"))
    for phrase in ("bool operands are refused", "bcast.not_equal(a, 0)", "division by zero", "numpy.floor_divide",
                   "numpy.fmod", "numpy.remainder", "OverflowError", "within 1 ulp", "np.where", "bfloat16",
                   "np.result_type(a, b)", "out"):
        assert phrase in readme, phrase
