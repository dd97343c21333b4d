"""Expressions: bcast.evaluate and bcast.Expression against numpy computing the same chain op
by op in the same dtype (numpy's float16 ops round each result once, as bcast's do, so floats
compare bit for bit). Where OpenVINO's semantics differ from numpy's, the reference is numpy's
spelling of OpenVINO's op: integer `/` floors, as numpy's `//`; `%` is numpy's `%` (floor
mod); integers wrap in both. Then out=, Python scalars, the rules, and the errors."""

import numpy as np
import pytest

import bcast
from conftest import assert_bit_equal


@pytest.fixture
def rng():
    return np.random.default_rng(29)


def rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.uniform(-2, 2, shape).astype(dtype)
    return rng.integers(-100, 100, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_batch_norm_inference(rng, dtype):
    x = rand(rng, (2, 3, 4, 5), dtype)
    s, b = rand(rng, (3, 1, 1), dtype), rand(rng, (3, 1, 1), dtype)
    want = np.add(np.multiply(x, s), b)
    assert_bit_equal(bcast.evaluate("x * s + b", x=x, s=s, b=b), want)
    # PDPD: per-channel vectors laid on x's axis 1
    got = bcast.evaluate("x * s + b", x=x, s=s.reshape(3), b=b.reshape(3),
                         auto_broadcast="pdpd", axis=1)
    assert_bit_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_layer_norm_tail(rng, dtype):
    x = rand(rng, (6, 33), dtype)
    m, r = rand(rng, (6, 1), dtype), rand(rng, (6, 1), dtype)
    g, b = rand(rng, (33,), dtype), rand(rng, (33,), dtype)
    want = (((x - m) * r) * g) + b
    got = bcast.evaluate("(x - m) * r * g + b", x=x, m=m, r=r, g=g, b=b)
    assert_bit_equal(got, want)


def test_integers_floor_and_wrap(rng):
    a = rand(rng, (4, 5), np.int32)
    a[0, 0] = np.iinfo(np.int32).max
    c = np.int32(7)
    d = np.array([3, -3, 7, -1, 2], np.int32)
    with np.errstate(over="ignore"):
        want = (a + c) // d   # OpenVINO's Divide (pythondiv) floors: numpy's //
        assert_bit_equal(bcast.evaluate("(a + c) / d", a=a, c=c, d=d), want)
        want = (a * d - c) % d
        assert_bit_equal(bcast.evaluate("(a * d - c) % d", a=a, c=c, d=d), want)
    assert_bit_equal(bcast.evaluate("maximum(a, 0) - a", a=a), np.maximum(a, 0) - a)


def test_bias_relu_and_select(rng):
    x = rand(rng, (3, 8), np.float32)
    b = rand(rng, (8,), np.float32)
    assert_bit_equal(bcast.evaluate("maximum(x + b, 0)", x=x, b=b), np.maximum(x + b, 0))
    leaky = bcast.evaluate("select(x > 0, x, x * 0.1)", x=x)
    assert_bit_equal(leaky, np.where(x > 0, x, x * np.float32(0.1)))
    assert_bit_equal(bcast.evaluate("x + b > 0.5", x=x, b=b), (x + b) > 0.5)


OPS = ["+", "-", "*"]


def random_chain(rng, names, integer):
    """A random expression over `names`, and the same text for numpy (Python's parser, numpy
    ops): integer `/` is numpy's `//`."""
    ops = OPS + (["/", "%"] if integer else ["/"])
    text = names[0]
    for name in names[1:]:
        op = ops[rng.integers(len(ops))]
        if rng.integers(3) == 0:
            text = f"maximum({text}, {name})"
        elif rng.integers(2):
            text = f"({text}) {op} {name}"
        else:
            text = f"{name} {op} ({text})"
    return text, (text.replace("/", "//") if integer else text)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64])
def test_random_chains_equal_numpy_op_by_op(rng, dtype):
    integer = np.dtype(dtype).kind == "i"
    for _ in range(40):
        n = int(rng.integers(2, 6))
        names = [f"v{i}" for i in range(n)]
        full = tuple(int(d) for d in rng.integers(1, 4, int(rng.integers(0, 4))))
        operands = {}
        for name in names:
            shape = tuple(d if rng.integers(3) else 1 for d in full[int(rng.integers(len(full) + 1)):])
            v = rand(rng, shape, dtype)
            if integer:
                v[v == 0] = 1   # no division by zero: that is an error, tested below
            operands[name] = v
        text, numpy_text = random_chain(rng, names, integer)
        with np.errstate(all="ignore"):
            # OpenVINO's Maximum is `a < b ? b : a` (NaN and signed zeros: README's table)
            ov_maximum = lambda a, b: np.where(a < b, b, a)  # noqa: E731
            want = eval(numpy_text, {"maximum": ov_maximum}, dict(operands))  # noqa: S307
        if not integer and np.isnan(want).any():
            continue   # 0 / 0 of an intermediate: NaN payloads are the hardware's, not compared
        try:
            got = bcast.evaluate(text, **operands)
        except bcast.BroadcastError as e:
            # An intermediate integer result of 0 divides: numpy gives 0 with a warning.
            assert integer and "division by zero" in str(e), (text, e)
            continue
        assert_bit_equal(np.asarray(got), np.asarray(want, dtype=dtype))


def test_out_contiguous_or_not(rng):
    x = rand(rng, (4, 6), np.float32)
    s = rand(rng, (6,), np.float32)
    want = x * s + np.float32(1.5)
    out = np.empty((4, 6), np.float32)
    assert bcast.evaluate("x * s + 1.5", out, x=x, s=s) is out
    assert_bit_equal(out, want)
    big = np.zeros((6, 8), np.float32)
    view = big[1:5, 1:7]
    assert not view.flags.c_contiguous
    assert bcast.evaluate("x * s + 1.5", out=view, x=x, s=s) is view
    assert_bit_equal(view, want)
    assert (big[0] == 0).all() and (big[:, 0] == 0).all() and (big[:, 7] == 0).all()
    # transposed inputs are read in place
    xt = np.ascontiguousarray(x.T).T
    assert_bit_equal(bcast.evaluate("x * s + 1.5", x=xt, s=s), want)
    e = bcast.Expression("x * s + 1.5")
    out2 = np.empty((4, 6), np.float32)
    assert e.evaluate(x=x, s=s, out=out2) is out2
    assert_bit_equal(out2, want)


def test_python_scalars_and_0d_arrays(rng):
    x = rand(rng, (5,), np.float32)
    # A Python scalar takes the array's dtype, as a number in the text does (NEP 50).
    got = bcast.evaluate("x * s + b", x=x, s=2.5, b=1)
    assert_bit_equal(got, x * 2.5 + 1)
    assert_bit_equal(got, bcast.evaluate("x * 2.5 + 1", x=x))
    h = rand(rng, (5,), np.float16)
    assert_bit_equal(bcast.evaluate("h * s", h=h, s=0.1), h * 0.1)
    assert_bit_equal(bcast.evaluate("h > s", h=h, s=True), h > True)
    i = rand(rng, (5,), np.int32)
    assert_bit_equal(bcast.evaluate("i * k + t", i=i, k=3, t=True), i * 3 + True)
    # 0-d arrays and numpy scalars keep their dtype
    assert_bit_equal(bcast.evaluate("x * s", x=x, s=np.array(3, np.float32)), x * np.float32(3))
    assert_bit_equal(bcast.evaluate("x * s", x=x, s=np.float32(3)), x * np.float32(3))
    with pytest.raises(bcast.BroadcastError):
        bcast.evaluate("x * s", x=x, s=np.float64(3))   # a strong float64: types differ
    # Python scalars only: numpy's default types; a 0-d result is a numpy scalar
    r = bcast.evaluate("a + b * c", a=1, b=2, c=3)
    assert isinstance(r, np.int64) and r == 7
    r = bcast.evaluate("a * b", a=1.5, b=2)
    assert isinstance(r, np.float64) and r == 3.0
    r = bcast.evaluate("logical_and(a, b)", a=True, b=True)
    assert isinstance(r, np.bool_) and r
    # bool arrays with a Python bool
    m = np.array([True, False])
    assert bcast.evaluate("logical_or(m, t)", m=m, t=False).tolist() == [True, False]


def test_expression_class(rng):
    e = bcast.Expression("(x - m) * r * g + b")
    assert e.inputs == ("x", "m", "r", "g", "b")
    assert str(e) == "add(multiply(multiply(subtract(x, m), r), g), b)"
    assert str(bcast.Expression(str(e))) == str(e)
    assert repr(e) == "Expression('add(multiply(multiply(subtract(x, m), r), g), b)')"
    x = rand(rng, (2, 4), np.float32)
    ops = {k: rand(rng, (2, 1) if k in "mr" else (4,), np.float32) for k in "mrgb"}
    want = (((x - ops["m"]) * ops["r"]) * ops["g"]) + ops["b"]
    assert_bit_equal(e.evaluate(x=x, **ops), want)
    assert_bit_equal(e.evaluate({"x": x, **ops}), want)
    # a name that bcast.evaluate keeps for itself goes through the mapping
    o = bcast.Expression("out * 2")
    assert o.inputs == ("out",)
    assert_bit_equal(o.evaluate({"out": x}), x * 2)
    with pytest.raises(TypeError, match="given twice"):
        e.evaluate({"x": x}, x=x, **ops)
    p = bcast.Expression("x * s", auto_broadcast="pdpd", axis=0)
    assert_bit_equal(p.evaluate(x=x, s=np.ones(2, np.float32)), x)


def test_errors(rng):
    x = rand(rng, (2, 3), np.float32)
    with pytest.raises(TypeError, match=r"missing operand\(s\) 'b'.*takes x, b"):
        bcast.evaluate("x + b", x=x)
    with pytest.raises(TypeError, match=r"unknown operand\(s\) 'y'"):
        bcast.evaluate("x + 1", x=x, y=x)
    with pytest.raises(TypeError, match="cannot be passed"):
        bcast.evaluate("out + 1", x=x)
    with pytest.raises(bcast.BroadcastError, match="character 4"):
        bcast.evaluate("x + * b", x=x, b=x)
    with pytest.raises(bcast.BroadcastError, match="unknown op 'frobnicate'"):
        bcast.Expression("frobnicate(x)")
    with pytest.raises(TypeError, match="add takes 2"):
        bcast.evaluate("add(x)", x=x)
    with pytest.raises(bcast.BroadcastError):   # [2,3] with [4]
        bcast.evaluate("x * s + 1", x=x, s=np.ones(4, np.float32))
    with pytest.raises(bcast.BroadcastError):   # none: equal shapes
        bcast.evaluate("x + b", x=x, b=np.ones(3, np.float32), auto_broadcast="none")
    with pytest.raises(TypeError, match="axis"):
        bcast.evaluate("x + b", x=x, b=x, axis=1)
    with pytest.raises(bcast.BroadcastError, match="division by zero"):
        bcast.evaluate("a / b + 1", a=np.array([1, 2], np.int32), b=np.array([1, 0], np.int32))
    with pytest.raises(bcast.BroadcastError, match="0.5"):
        bcast.evaluate("a * s", a=np.array([1, 2], np.int32), s=0.5)
    with pytest.raises(OverflowError, match="300 out of bounds for uint8"):
        bcast.evaluate("a + s", a=np.array([1], np.uint8), s=300)
    with pytest.raises(bcast.BroadcastError):   # f32 with f64
        bcast.evaluate("x + y", x=x, y=x.astype(np.float64))
    with pytest.raises(TypeError):              # arithmetic on bool
        bcast.evaluate("a + b", a=np.array([True]), b=np.array([False]))
    out = np.empty((2, 3), np.float64)
    with pytest.raises(TypeError, match="dtype"):
        bcast.evaluate("x * 2", out, x=x)
    with pytest.raises(bcast.BroadcastError):
        bcast.evaluate("x * 2", np.empty((3, 2), np.float32), x=x)
    with pytest.raises(TypeError, match="keyword-only"):
        bcast.evaluate("x * 2", "pdpd", x=x)
    with pytest.raises(ValueError):             # out overlaps an input
        bcast.evaluate("x * 2", x, x=x)


def test_deep_and_long_expressions_run_or_raise_never_crash():
    # Issue 51: a 30,000-term chain ended the interpreter with a segmentation fault.
    x = np.array([3, -5, 1 << 40], np.int64)
    y = bcast.evaluate("+".join(["x"] * 30000), x=x)
    assert_bit_equal(y, x * 30000)
    depth = 100000
    y = bcast.evaluate("(" * depth + "x + 1" + ")" * depth, x=x)
    assert_bit_equal(y, x + 1)
    text = "x"
    for _ in range(20000):
        text = f"maximum({text}, 7)"
    assert_bit_equal(bcast.evaluate(text, x=x), np.maximum(x, 7))
    c = np.array([True, False, True])
    text = "x"
    for _ in range(20000):
        text = f"select(c, {text}, 0)"
    assert_bit_equal(bcast.evaluate(text, x=x, c=c), np.where(c, x, 0))
    # The text form of a deep expression, in str() and in an error's message.
    e = bcast.Expression("+".join(["x"] * 30000))
    assert str(e).startswith("add(add(")
    with pytest.raises(TypeError, match="missing operand"):
        e.evaluate()
    # Past the limit on ops: an exception naming it.
    with pytest.raises(bcast.BroadcastError, match="MAX_OPS"):
        bcast.evaluate("+".join(["x"] * 100001), x=x)
