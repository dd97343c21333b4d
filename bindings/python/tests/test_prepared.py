"""bcast.PreparedOp: an element-wise op prepared once for its operands' dtypes and shapes, run
many times. Expected values are numpy's (computed here, independently of bcast), bit for bit;
the errors are the documented exceptions."""

import numpy as np
import pytest

import bcast
from conftest import assert_bit_equal

RNG = np.random.default_rng(50)


def floats(shape, dtype=np.float32):
    return (RNG.standard_normal(shape) * 4).astype(dtype)


def ints(shape, dtype=np.int32, low=-50, high=50):
    return RNG.integers(low, high, shape).astype(dtype)


# (op, attributes, [operands], numpy's result of the operands): broadcasting shapes throughout.
def cases():
    a, b = floats((2, 3, 4)), floats((3, 1))
    yield "add", {}, [a, b], a + b
    h, g = floats((5, 1, 7), np.float16), floats((6, 1), np.float16)
    yield "multiply", {}, [h, g], h * g
    yield "add", {}, [h, g], h + g
    i, j = ints((4, 5)), ints((5,))
    yield "subtract", {}, [i, j], i - j
    nz = np.where(j == 0, 7, j).astype(np.int32)
    trunc = (np.abs(i) // np.abs(nz)) * np.sign(i) * np.sign(nz)
    yield "onnx_div", {}, [i, nz], trunc.astype(np.int32)
    yield "divide", {"pythondiv": False}, [i, nz], trunc.astype(np.int32)
    yield "divide", {}, [i, nz], np.floor_divide(i, nz)
    yield "onnx_mod", {"fmod": 1}, [a, b], np.fmod(a, b)
    yield "less", {}, [a, b], a < b
    yield "equal", {}, [i, j], i == j
    yield "greater_equal", {}, [i, j], i >= j
    p, q = RNG.random((3, 4)) < 0.5, RNG.random((4,)) < 0.5
    yield "less", {}, [p, q], p < q
    yield "not_equal", {}, [p, q], p != q
    yield "logical_and", {}, [p, q], p & q
    yield "logical_xor", {}, [p, q], p ^ q
    a, b, c = a.copy(), b.copy(), floats((2, 1, 4))  # the operands above stay as they were
    a[0, 0, 0], b[1, 0], c[1, 0, 3] = np.nan, np.nan, np.nan
    yield "max", {}, [a, b, c], np.maximum(np.maximum(a, b), c)
    yield "min", {}, [a, b, c], np.minimum(np.minimum(a, b), c)
    yield "sum", {}, [c], c
    yield "select", {}, [a > 0, a, b], np.where(a > 0, a, b)
    u, s = ints((6,), np.uint8, 0, 200), ints((1,), np.uint8, 0, 8)
    yield "bit_shift", {"direction": "LEFT"}, [u, s], np.left_shift(u, s)
    yield "bit_shift", {"direction": "RIGHT"}, [u, s], np.right_shift(u, s)
    yield "bitwise_xor", {}, [i, j], i ^ j
    x, slope = -np.abs(floats((2, 3, 4))), floats((4,))
    yield "onnx_prelu", {}, [x, slope], np.where(x < 0, x * slope, x)
    yield "add", {}, [np.float32(1.5), np.float32(2.25)], np.float32(3.75)


CASES = list(cases())


@pytest.mark.parametrize("op, attrs, operands, want", CASES,
                         ids=[f"{c[0]}-{c[2][0].dtype}-{i}" for i, c in enumerate(CASES)])
def test_prepared_op_equals_numpy(op, attrs, operands, want):
    operands = [np.asarray(x) for x in operands]
    prepared = bcast.PreparedOp(op, [x.dtype for x in operands], [x.shape for x in operands], **attrs)
    assert prepared.op == op
    assert prepared.output_shape == np.shape(want)
    assert prepared.output_dtype == np.asarray(want).dtype
    assert prepared.dtypes == tuple(x.dtype for x in operands)
    assert prepared.shapes == tuple(x.shape for x in operands)
    got = prepared(*operands)
    assert_bit_equal(got, want)
    if op != "select" and np.ndim(want) == 0:
        assert isinstance(got, np.generic)  # a numpy scalar, as the functions give
    out = np.empty(np.shape(want), np.asarray(want).dtype)
    assert prepared(*operands, out=out) is out
    assert_bit_equal(out, want)


def test_many_runs_on_new_arrays_and_strides():
    add = bcast.PreparedOp("add", ["float32", "float32"], [(4, 6), (6,)])
    for _ in range(5):
        a, b = floats((4, 6)), floats((6,))
        assert_bit_equal(add(a, b), a + b)
    # A transposed view and a reversed one: read in place, the result is numpy's.
    t, r = floats((6, 4)).T, floats((12,))[::-2]
    assert not t.flags.c_contiguous
    assert_bit_equal(add(t, r), t + r)
    # A strided out.
    big = np.zeros((4, 12), np.float32)
    out = big[:, ::2]
    assert add(t, r, out=out) is out
    assert_bit_equal(big[:, ::2], t + r)
    assert not big[:, 1::2].any()


def test_pdpd_and_none_rules():
    x, y = floats((2, 3, 4, 5)), floats((3, 4))
    add = bcast.PreparedOp("add", [np.float32] * 2, [x.shape, y.shape], auto_broadcast="pdpd", axis=1)
    assert_bit_equal(add(x, y), x + y.reshape(1, 3, 4, 1))
    same = bcast.PreparedOp("multiply", [np.int64] * 2, [(3, 2), (3, 2)], auto_broadcast="none")
    a, b = ints((3, 2), np.int64), ints((3, 2), np.int64)
    assert_bit_equal(same(a, b), a * b)
    with pytest.raises(bcast.BroadcastError):
        bcast.PreparedOp("multiply", [np.int64] * 2, [(3, 2), (2,)], auto_broadcast="none")


def test_select_on_strings_and_0d_select():
    cond = np.array([True, False, True])
    a, b = np.array(["ab", "c", "def"]), np.array(["wxyz"])
    sel = bcast.PreparedOp("select", [bool, str, str], [(3,), (3,), (1,)])
    got = sel(cond, a, b)
    assert got.tolist() == np.where(cond, a, b).tolist() and got.dtype == np.dtype("<U4")
    zero = bcast.PreparedOp("select", [bool, np.int8, np.int8], [(), (), ()])
    got = zero(np.bool_(False), np.int8(1), np.int8(2))
    assert isinstance(got, np.ndarray) and got.shape == () and got == 2  # as np.where


def test_a_context_and_a_large_run():
    x, s = floats((1, 64, 56, 56)), floats((1, 64, 1, 1))
    mul = bcast.PreparedOp("multiply", [np.float32] * 2, [x.shape, s.shape])
    for threads in (1, 2):
        ctx = bcast.Context(threads=threads)
        assert_bit_equal(mul(x, s, context=ctx), x * s)
    with pytest.raises(TypeError):
        mul(x, s, context="two")


def test_threads_share_one_prepared_op():
    """One prepared op called from several Python threads at once (the GIL released while it
    runs): every thread gets numpy's result for its own operands."""
    import threading

    mul = bcast.PreparedOp("multiply", [np.float32] * 2, [(64, 256), (256,)])
    errors, done = [], []

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(20):
                a = rng.standard_normal((64, 256)).astype(np.float32)
                b = rng.standard_normal(256).astype(np.float32)
                assert_bit_equal(mul(a, b), a * b)
            done.append(seed)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(done) == 8


def test_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf = ml_dtypes.bfloat16
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([0.5, -1, 2], np.float32)
    add = bcast.PreparedOp("add", [bf, "bfloat16"], [(2, 3), (3,)])
    assert add.output_dtype == np.dtype(bf)
    got = add(a.astype(bf), b.astype(bf))
    assert got.dtype == np.dtype(bf) and got.astype(np.float32).tolist() == (a + b).tolist()


def test_repr():
    r = repr(bcast.PreparedOp("add", [np.float32, np.float32], [(2, 3), (3,)]))
    assert r.startswith("bcast.PreparedOp(") and "float32" in r and "[2, 3]" in r


# --- errors ------------------------------------------------------------------------------

ADD = bcast.PreparedOp("add", [np.float32, np.float32], [(2, 3), (3,)])
A, B = floats((2, 3)), floats((3,))


def test_call_errors():
    with pytest.raises(bcast.BroadcastError, match="f32 and i32"):
        ADD(A.astype(np.int32), B.astype(np.int32))  # another dtype
    with pytest.raises(bcast.BroadcastError, match="f32 and f64"):
        ADD(A, B.astype(np.float64))  # one operand of another dtype
    with pytest.raises(bcast.BroadcastError):
        ADD(floats((4, 3)), B)  # another shape, even one that broadcasts
    with pytest.raises(bcast.BroadcastError):
        ADD(A, floats((1,)))
    with pytest.raises(bcast.BroadcastError, match="f32 and f64"):
        ADD(A, 1.0)  # a Python float is numpy.asarray'd: float64 (and of shape ())
    with pytest.raises(TypeError):
        ADD(A)  # another count
    with pytest.raises(TypeError):
        ADD(A, B, B)
    with pytest.raises(TypeError):
        ADD(A, np.array([1 + 2j] * 3))  # a dtype bcast does not have
    with pytest.raises(TypeError, match="out has dtype float64"):
        ADD(A, B, out=np.empty((2, 3), np.float64))  # out of another dtype
    with pytest.raises(bcast.BroadcastError):
        ADD(A, B, out=np.empty((3, 2), np.float32))  # out of another shape
    with pytest.raises(bcast.BroadcastError):
        ADD(A, B, out=np.empty((6,), np.float32))
    ro = np.empty((2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ADD(A, B, out=ro)
    a = A.copy()
    with pytest.raises(ValueError, match="overlaps"):
        ADD(a, B, out=a)
    with pytest.raises(TypeError):
        ADD(A, B, out=[0.0] * 6)
    with pytest.raises(TypeError):
        ADD(A, B, out="numpy")
    # An integer division by zero is the library's error.
    div = bcast.PreparedOp("onnx_div", [np.int32] * 2, [(2,), (2,)])
    with pytest.raises(bcast.BroadcastError, match="zero"):
        div(np.array([1, 2], np.int32), np.array([1, 0], np.int32))
    # A prepared op still works after every refusal.
    assert_bit_equal(ADD(A, B), A + B)


def test_prepare_errors():
    f = np.float32
    with pytest.raises(ValueError, match="nosuchop"):
        bcast.PreparedOp("nosuchop", [f, f], [(2,), (2,)])
    with pytest.raises(ValueError, match="2 dtypes but 1 shapes"):
        bcast.PreparedOp("add", [f, f], [(2,)])
    with pytest.raises(bcast.BroadcastError):
        bcast.PreparedOp("add", [f, f], [(2, 3), (4,)])  # shapes that do not broadcast
    with pytest.raises(bcast.BroadcastError):
        bcast.PreparedOp("add", [f, np.float64], [(2,), (2,)])  # two dtypes
    with pytest.raises(TypeError):
        bcast.PreparedOp("add", [bool, bool], [(2,), (2,)])  # a dtype the op does not take
    with pytest.raises(TypeError):
        bcast.PreparedOp("add", [np.complex64] * 2, [(2,), (2,)])  # a dtype bcast lacks
    with pytest.raises(TypeError):
        bcast.PreparedOp("add", [f, f, f], [(2,), (2,), (2,)])  # a count the op does not take
    with pytest.raises(TypeError):
        bcast.PreparedOp("max", [], [])
    with pytest.raises(TypeError, match="direction"):
        bcast.PreparedOp("bit_shift", [np.uint8] * 2, [(2,), (2,)])  # a required attribute
    with pytest.raises(ValueError, match="LEFT"):
        bcast.PreparedOp("bit_shift", [np.uint8] * 2, [(2,), (2,)], direction="UP")
    with pytest.raises(TypeError, match="has no attribute"):
        bcast.PreparedOp("add", [f, f], [(2,), (2,)], fmod=1)
    with pytest.raises(TypeError, match="own rule"):
        bcast.PreparedOp("onnx_div", [f, f], [(2,), (2,)], auto_broadcast="numpy")
    with pytest.raises(ValueError):
        bcast.PreparedOp("add", [f, f], [(2,), (2,)], auto_broadcast="sideways")
    with pytest.raises(TypeError, match="sequence"):
        bcast.PreparedOp("add", "ff", [(2,), (2,)])
    with pytest.raises(TypeError):
        bcast.PreparedOp("add", [f, f], [(2,), "x"])
    with pytest.raises(bcast.BroadcastError):
        bcast.PreparedOp("add", [f, f], [(2,), (-1,)])
