"""Random shapes, dtypes and layouts against numpy (hypothesis): every mode is numpy's
`np.broadcast_to` of the data reshaped onto the output's axes, which is what the modes mean."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bcast
from conftest import assert_bit_equal

DTYPES = ["?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "U3"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

dims = st.integers(0, 4)
targets = st.lists(dims, min_size=0, max_size=5)


@st.composite
def data_for(draw, shape):
    """Random values of a random dtype in `shape`, seen through a random layout."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    n = int(np.prod(shape))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if dtype.kind == "U":
        x = np.array(["", "a", "bc", "déf"])[rng.integers(0, 4, n)].reshape(shape)
    else:
        raw = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
        x = (raw != 0 if dtype.kind == "b" else raw.view(dtype)).reshape(shape)
    layout = draw(st.sampled_from(["c", "f", "reversed", "padded"]))
    if layout == "f" and x.ndim:  # (asfortranarray makes a 0-d array 1-d)
        x = np.asfortranarray(x)
    elif layout == "reversed" and x.ndim:
        x = x[(slice(None, None, -1),) * x.ndim].copy()[(slice(None, None, -1),) * x.ndim]
    elif layout == "padded" and x.ndim:
        # The same values inside a larger array: every axis strided by 2.
        big = np.zeros(tuple(2 * d for d in shape), dtype)
        big[(slice(None, None, 2),) * x.ndim] = x
        x = big[(slice(None, None, 2),) * x.ndim]
    return x


@st.composite
def numpy_case(draw):
    target = draw(targets)
    k = draw(st.integers(0, len(target)))
    data = [1 if draw(st.booleans()) else d for d in target[len(target) - k:]]
    return draw(data_for(data)), tuple(target)


@given(numpy_case())
@SETTINGS
def test_numpy_mode(case):
    x, target = case
    assert_bit_equal(bcast.broadcast(x, target), np.broadcast_to(x, target))
    assert bcast.output_shape(x.shape, target) == target


@given(st.data())
@SETTINGS
def test_bidirectional_mode(data):
    a, b = data.draw(st.tuples(targets, targets))
    # Make the two shapes compatible: per right-aligned axis, keep one side or put a 1.
    b = list(b)
    for i in range(1, min(len(a), len(b)) + 1):
        if a[-i] != b[-i] and a[-i] != 1:
            b[-i] = data.draw(st.sampled_from([1, a[-i]]))
    x = data.draw(data_for(a))
    out = np.broadcast_shapes(tuple(a), tuple(b))
    assert_bit_equal(bcast.broadcast(x, b, "bidirectional"), np.broadcast_to(x, out))


@given(st.data())
@SETTINGS
def test_explicit_and_axes_modes(data):
    target = data.draw(st.lists(dims, min_size=0, max_size=5))
    axes = sorted(data.draw(st.sets(st.integers(0, max(len(target) - 1, 0)), max_size=len(target))))
    axes = [a for a in axes if a < len(target)]
    shape = [1 if data.draw(st.booleans()) else target[a] for a in axes]
    x = data.draw(data_for(shape))
    aligned = [1] * len(target)
    for a, d in zip(axes, shape):
        aligned[a] = d
    want = np.broadcast_to(x.reshape(aligned), target)
    assert_bit_equal(bcast.broadcast(x, target, "explicit", axes_mapping=axes), want)
    # nGraph axes: the complement are new axes, the data's dims must equal the target's.
    exact = [target[a] for a in axes]
    y = data.draw(data_for(exact))
    new = [i for i in range(len(target)) if i not in axes]
    want = np.broadcast_to(y.reshape([target[i] if i in axes else 1 for i in range(len(target))]), target)
    assert_bit_equal(bcast.broadcast(y, target, "axes", broadcast_axes=new), want)


@given(st.data())
@SETTINGS
def test_pdpd_mode(data):
    target = data.draw(st.lists(dims, min_size=0, max_size=5))
    start = data.draw(st.integers(0, len(target)))
    end = data.draw(st.integers(start, len(target)))
    shape = [1 if data.draw(st.booleans()) else d for d in target[start:end]]
    x = data.draw(data_for(shape))
    aligned = [1] * len(target)
    aligned[start:end] = shape
    want = np.broadcast_to(x.reshape(aligned), target)
    axis = -1 if end == len(target) and data.draw(st.booleans()) else start
    assert_bit_equal(bcast.broadcast(x, target, "pdpd", axis=axis), want)


@given(st.lists(targets, min_size=1, max_size=4).flatmap(
    lambda ts: st.tuples(st.just(ts), st.lists(st.booleans(), min_size=25, max_size=25))))
@SETTINGS
def test_broadcast_shapes_and_arrays(case):
    shapes, ones = case
    # Compatible shapes: right-aligned against the first, with random 1s.
    base = max(shapes, key=len)
    flips = iter(ones)
    shapes = [tuple(1 if next(flips, False) else base[len(base) - len(s) + i] for i in range(len(s))) for s in shapes]
    assert bcast.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)
    xs = [np.arange(int(np.prod(s)), dtype=np.int32).reshape(s) for s in shapes]
    for got, want in zip(bcast.broadcast_arrays(*xs), np.broadcast_arrays(*xs)):
        assert_bit_equal(got, want)


@given(numpy_case())
@SETTINGS
def test_reduce_is_the_adjoint(case):
    x, target = case
    shape = x.shape
    grad = np.arange(int(np.prod(target)), dtype=np.int64).reshape(target) % 7
    lead = len(target) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape) if d == 1 and target[lead + i] != 1)
    want = grad.sum(axis=axes).reshape(shape) if target else grad
    assert_bit_equal(bcast.reduce_to_input(grad, shape), want.astype(np.int64))
