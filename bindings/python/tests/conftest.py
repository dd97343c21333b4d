"""Helpers shared by the tests: bit-exact comparison, as the Rust conformance runner does."""

import numpy as np


def native(a):
    """`a` in native byte order (values unchanged)."""
    a = np.asarray(a)
    if a.dtype.byteorder not in ("=", "|"):
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def assert_bit_equal(actual, expected):
    """Same dtype (byte order aside), shape and elements: numbers bit for bit (a NaN equals a
    NaN with the same payload, -0.0 is not 0.0), strings by value (the width may differ)."""
    actual, expected = native(actual), native(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.dtype.kind == "U":
        assert actual.dtype.kind == "U", actual.dtype
        assert actual.tolist() == expected.tolist()
        return
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    a = np.ascontiguousarray(actual).reshape(-1).view(np.uint8)
    e = np.ascontiguousarray(expected).reshape(-1).view(np.uint8)
    if not np.array_equal(a, e):
        bad = np.flatnonzero(
            np.ascontiguousarray(actual).reshape(-1).view(f"u{actual.itemsize}")
            != np.ascontiguousarray(expected).reshape(-1).view(f"u{expected.itemsize}")
        )
        raise AssertionError(
            f"{bad.size} elements differ, first at flat index {bad[0]}: "
            f"{actual.reshape(-1)[bad[0]]!r} != {expected.reshape(-1)[bad[0]]!r}"
        )
