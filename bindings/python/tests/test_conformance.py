"""Every case of conformance/cases (op broadcast) and conformance/reduce, through the Python API.

The format is conformance/README.md's; the comparison is the Rust runner's: bit for bit for
numbers, by value for strings, and for reduce cases within the case's rtol/atol (approx's
relative_eq). BCAST_CONFORMANCE names another conformance folder.
"""

import json
import os
from pathlib import Path

import numpy as np
import pytest

import bcast
from conftest import assert_bit_equal, native

ROOT = Path(os.environ.get("BCAST_CONFORMANCE", Path(__file__).resolve().parents[3] / "conformance"))


def case_dirs(group):
    base = ROOT / group
    return sorted(p.parent for p in base.rglob("case.json")) if base.is_dir() else []


BROADCAST = case_dirs("cases")
REDUCE = case_dirs("reduce")


def ids(dirs):
    return [str(d.relative_to(ROOT)) for d in dirs]


def mode_kwargs(case):
    kw = {}
    for key in ("axes_mapping", "axis", "broadcast_axes"):
        if key in case:
            kw[key] = case[key]
    return kw


def test_suite_found():
    # 417 broadcast and 75 reduce cases at the time of writing; a moved folder must not
    # make this file pass by running nothing.
    assert len(BROADCAST) >= 400 and len(REDUCE) >= 70, ROOT


@pytest.mark.parametrize("folder", BROADCAST, ids=ids(BROADCAST))
def test_broadcast_case(folder):
    case = json.loads((folder / "case.json").read_text())
    assert case.get("op", "broadcast") == "broadcast"
    inputs = [np.load(folder / f) for f in case["inputs"]]
    if case["mode"] == "multi":
        run = lambda: bcast.broadcast_arrays(*inputs)  # noqa: E731
    else:
        (x,) = inputs
        run = lambda: [  # noqa: E731
            bcast.broadcast(x, case["target_shape"], case["mode"], **mode_kwargs(case))
        ]
    if case.get("error"):
        with pytest.raises(bcast.BroadcastError):
            run()
        return
    outputs = run()
    expected = [np.load(folder / f) for f in case["outputs"]]
    assert len(outputs) == len(expected)
    for actual, want in zip(outputs, expected):
        assert actual.flags.c_contiguous and actual.flags.writeable
        assert_bit_equal(actual, want)
    if case["mode"] != "multi" and case["inputs"] and expected[0].dtype.kind != "U":
        # The same case into a caller's array.
        out = np.empty(expected[0].shape, dtype=native(expected[0]).dtype)
        assert bcast.broadcast(x, case["target_shape"], case["mode"], out=out, **mode_kwargs(case)) is out
        assert_bit_equal(out, expected[0])


def close(actual, expected, rtol, atol):
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    same = a == e  # infinities
    with np.errstate(invalid="ignore"):  # inf - inf
        diff = np.abs(a - e)
    return same | (diff <= atol) | (diff <= rtol * np.maximum(np.abs(a), np.abs(e)))


@pytest.mark.parametrize("folder", REDUCE, ids=ids(REDUCE))
def test_reduce_case(folder):
    case = json.loads((folder / "case.json").read_text())
    assert case["op"] == "reduce"
    (grad,) = [np.load(folder / f) for f in case["inputs"]]
    kw = mode_kwargs(case)
    run = lambda: bcast.reduce_to_input(  # noqa: E731
        grad, case["data_shape"], case["mode"], target_shape=case["target_shape"], **kw
    )
    if case.get("error"):
        with pytest.raises((bcast.BroadcastError, TypeError)):
            run()
        return
    actual = run()
    (want,) = [native(np.load(folder / f)) for f in case["outputs"]]
    assert actual.dtype == want.dtype and actual.shape == want.shape
    if want.dtype.kind == "f":
        ok = close(actual, want, case["rtol"], case["atol"])
        assert ok.all(), (actual[~ok][:5], want[~ok][:5])
    else:
        assert_bit_equal(actual, want)
    # target_shape defaults to the gradient's shape: the same broadcast in every mode.
    if grad.shape == tuple(
        bcast.output_shape(case["data_shape"], case["target_shape"], case["mode"], **kw)
    ):
        again = bcast.reduce_to_input(grad, case["data_shape"], case["mode"], **kw)
        assert_bit_equal(again, actual)
