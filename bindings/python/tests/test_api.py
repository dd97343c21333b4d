"""The Python API itself: every dtype, every input layout, out=, the errors, the GIL."""

import doctest
import sys
import threading
import time

import numpy as np
import pytest

import bcast
from conftest import assert_bit_equal

NUMERIC = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64,
]


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if np.dtype(dtype).kind == "U":
        words = np.array(["", "a", "héllo", "日本語", "x" * 9, "tab\tnul"])
        return words[rng.integers(0, len(words), n)].reshape(shape)
    raw = rng.integers(0, 256, n * np.dtype(dtype).itemsize, dtype=np.uint8)
    a = raw.view(dtype).reshape(shape)
    return a != 0 if dtype is np.bool_ else a


# --- dtypes -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC + [np.str_], ids=lambda d: np.dtype(d).name)
def test_every_dtype(dtype):
    x = sample(dtype, (3, 1, 4))  # random bits: NaN payloads, -0.0, subnormals included
    got = bcast.broadcast(x, (2, 3, 5, 4))
    assert_bit_equal(got, np.broadcast_to(x, (2, 3, 5, 4)))
    assert got.dtype.kind == np.dtype(dtype).kind


def test_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([[1.5], [-0.0], [np.inf]], dtype=ml_dtypes.bfloat16)
    got = bcast.broadcast(x, (3, 4))
    assert got.dtype == ml_dtypes.bfloat16
    assert_bit_equal(got.view(np.uint16), np.broadcast_to(x, (3, 4)).view(np.uint16))
    grad = bcast.reduce_to_input(np.ones((3, 4), ml_dtypes.bfloat16), (3, 1))
    assert grad.dtype == ml_dtypes.bfloat16 and grad.astype(np.float32).tolist() == [[4.0]] * 3


def test_strings_keep_width_of_longest_and_values():
    x = np.array(["a", "日本語", ""])
    got = bcast.broadcast(x, (2, 3))
    assert got.dtype == np.dtype("<U3")
    assert got.tolist() == [["a", "日本語", ""]] * 2
    assert bcast.broadcast(np.array([""]), (2,)).tolist() == ["", ""]
    assert bcast.broadcast(np.empty((0,), "U4"), (3, 0)).shape == (3, 0)


def test_big_endian_and_unaligned_inputs():
    x = np.arange(6, dtype=">f4").reshape(2, 3)
    assert_bit_equal(bcast.broadcast(x, (4, 2, 3)), np.broadcast_to(x, (4, 2, 3)))
    s = np.array(["ab", "c"], dtype=">U2")
    assert bcast.broadcast(s, (2, 2)).tolist() == [["ab", "c"]] * 2
    packed = np.zeros(5, dtype=[("a", "u1"), ("b", "<f8")])  # 'b' is at offset 1: unaligned
    packed["b"] = np.arange(5) - 0.5
    assert not packed["b"].flags.aligned
    assert_bit_equal(bcast.broadcast(packed["b"], (2, 5)), np.broadcast_to(packed["b"], (2, 5)))


def test_array_likes_and_scalars():
    assert bcast.broadcast([1, 2, 3], [2, 3]).tolist() == [[1, 2, 3]] * 2
    assert bcast.broadcast(2.5, (2,)).tolist() == [2.5, 2.5]
    assert bcast.broadcast(np.float32(1), ()).shape == ()
    assert bcast.broadcast(np.arange(3), 3).tolist() == [0, 1, 2]
    assert bcast.broadcast(np.arange(3), np.array([2, 3])).shape == (2, 3)


# --- layouts: the input is read in place with its own strides ----------------------------


LAYOUTS = {
    "transposed": lambda a: a.T,
    "reversed": lambda a: a[::-1, ::-2],
    "sliced": lambda a: a[1:, ::3],
    "fortran": lambda a: np.asfortranarray(a),
    "broadcast_view": lambda a: np.broadcast_to(a[:1], a.shape),
    "readonly": lambda a: readonly(a),
}


def readonly(a):
    a = a.copy()
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float64, np.str_], ids=lambda d: np.dtype(d).name)
def test_non_contiguous_inputs(layout, dtype):
    x = LAYOUTS[layout](sample(dtype, (4, 6), seed=1))
    target = (3,) + x.shape
    assert_bit_equal(bcast.broadcast(x, target), np.broadcast_to(x, target))
    col = x[:, :1]
    assert_bit_equal(bcast.broadcast(col, (2, x.shape[0], 5)), np.broadcast_to(col, (2, x.shape[0], 5)))


def test_negative_strides_every_mode():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)[::-1, ::-1]
    expect = np.broadcast_to(x.reshape(1, 3, 1, 4), (2, 3, 5, 4))
    assert_bit_equal(bcast.broadcast(x, (2, 3, 5, 4), "explicit", axes_mapping=[1, 3]), expect)
    assert_bit_equal(bcast.broadcast(x, (2, 3, 5, 4), "axes", broadcast_axes=[0, 2]), expect)
    assert_bit_equal(
        bcast.broadcast(x, (2, 3, 4, 5), "pdpd", axis=1),
        np.broadcast_to(x.reshape(1, 3, 4, 1), (2, 3, 4, 5)),
    )
    assert_bit_equal(bcast.broadcast(x[:, :1], (2, 1, 7), "bidirectional"), np.broadcast_to(x[:, :1], (2, 3, 7)))


# --- out= ---------------------------------------------------------------------------------


def test_out_c_contiguous_and_strided():
    x = np.arange(3, dtype=np.float32)
    out = np.full((2, 3), 9, np.float32)
    assert bcast.broadcast(x, (2, 3), out=out) is out
    assert out.tolist() == [[0, 1, 2]] * 2
    big = np.zeros((6, 3), np.float32)
    view = big[::3]  # rows 0 and 3
    assert bcast.broadcast(x, (2, 3), out=view) is view
    assert big[0].tolist() == big[3].tolist() == [0, 1, 2] and not big[1].any()
    t = np.zeros((3, 2), np.float32).T
    bcast.broadcast(x, (2, 3), out=t)
    assert t.tolist() == [[0, 1, 2]] * 2


def test_out_bidirectional_takes_the_output_shape():
    out = np.zeros((2, 3, 6), np.int8)
    bcast.broadcast(np.ones((3, 1), np.int8), (2, 1, 6), "bidirectional", out=out)
    assert out.all()


def test_out_strings():
    out = np.empty((2, 2), "<U5")
    assert bcast.broadcast(np.array(["ab", "cde"]), (2, 2), out=out) is out
    assert out.tolist() == [["ab", "cde"]] * 2
    with pytest.raises(TypeError):
        bcast.broadcast(np.array(["abcdef"]), (2,), out=np.empty(2, "<U2"))  # would truncate
    with pytest.raises(TypeError):
        bcast.broadcast(np.array(["a"]), (2,), out=np.empty(2, np.int32))


def test_out_errors():
    x = np.arange(3, dtype=np.float32)
    with pytest.raises(bcast.BroadcastError, match=r"\[2,3\]"):
        bcast.broadcast(x, (2, 3), out=np.empty((3, 2), np.float32))
    with pytest.raises(TypeError, match="float64"):
        bcast.broadcast(x, (2, 3), out=np.empty((2, 3), np.float64))
    with pytest.raises(TypeError, match="ndarray"):
        bcast.broadcast(x, (2, 3), out=[[0] * 3] * 2)
    ro = np.empty((2, 3), np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        bcast.broadcast(x, (2, 3), out=ro)
    buf = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="overlaps"):
        bcast.broadcast(buf[0], (2, 3), out=buf)
    assert not buf.any()


# --- the other functions ------------------------------------------------------------------


def test_broadcast_arrays_mixed_dtypes():
    a, b, c = bcast.broadcast_arrays(np.array([[1], [2]], np.int16), np.arange(3.0), np.array("s"))
    assert (a.dtype, b.dtype, c.dtype.kind) == (np.int16, np.float64, "U")
    for got, want in zip((a, b, c), np.broadcast_arrays(np.array([[1], [2]], np.int16), np.arange(3.0), np.array("s"))):
        assert_bit_equal(got, want)
    (only,) = bcast.broadcast_arrays(np.arange(2))
    assert only.tolist() == [0, 1]


def test_shapes():
    assert bcast.output_shape((3, 1), (2, 1, 6), "bidirectional") == (2, 3, 6)
    assert bcast.output_shape(64, [1, 64, 5, 5], "explicit", axes_mapping=[1]) == (1, 64, 5, 5)
    assert bcast.output_shape((3,), (3, 2), "axes", broadcast_axes=(1,)) == (3, 2)
    assert bcast.output_shape((3, 4), (2, 3, 4, 5), "PDPD", axis=1) == (2, 3, 4, 5)
    assert bcast.output_shape((), ()) == ()
    assert bcast.broadcast_shapes((2, 1), (3,), 1, np.array([1, 1, 1])) == (1, 2, 3)
    assert bcast.broadcast_shapes((5, 0), (1,)) == np.broadcast_shapes((5, 0), (1,))


def test_reduce_to_input():
    g = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert_bit_equal(bcast.reduce_to_input(g, (3, 1)), g.sum(axis=(0, 2), keepdims=True)[0].astype(np.float32))
    assert_bit_equal(
        bcast.reduce_to_input(g.transpose(1, 0, 2).copy().transpose(1, 0, 2), (3,), "explicit", axes_mapping=[1]),
        g.sum(axis=(0, 2)),
    )
    assert bcast.reduce_to_input(np.array([[200, 100]], np.uint8), (1, 1)).tolist() == [[44]]
    assert bcast.reduce_to_input(np.ones((2, 3, 6)), (3, 1), "bidirectional", target_shape=(2, 1, 6)).tolist() == [[12.0]] * 3


# --- errors -------------------------------------------------------------------------------


def test_error_is_value_error_with_library_message():
    assert issubclass(bcast.BroadcastError, ValueError)
    with pytest.raises(bcast.BroadcastError) as e:
        bcast.broadcast(np.float32([0.5, -1, 2]), (1, 4, 2, 2), "explicit", axes_mapping=[1])
    assert str(e.value) == (
        "explicit broadcast: data dim 3 at axis 0 cannot become 4 (must be 1 or 4); "
        "data shape [3], target shape [1,4,2,2]"
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda: bcast.broadcast(np.ones(3), (2, -3)),
        lambda: bcast.broadcast(np.ones(3), (2, 3), "explicit", axes_mapping=[-1]),
        lambda: bcast.broadcast(np.ones(3), (2, 3), "explicit", axes_mapping=[0, 1]),
        lambda: bcast.broadcast(np.ones(3), (2, 3), "pdpd", axis=-2),
        lambda: bcast.broadcast(np.ones((2, 3)), (3,)),
        lambda: bcast.broadcast(np.ones(3), (2**40, 2**40)),
        lambda: bcast.broadcast_arrays(),
        lambda: bcast.broadcast_arrays(np.ones(2), np.ones(3)),
        lambda: bcast.broadcast_shapes((2,), (3,)),
        lambda: bcast.broadcast_shapes(),
        lambda: bcast.output_shape((3,), (3, 2), "axes", broadcast_axes=[0]),
        lambda: bcast.reduce_to_input(np.ones((2, 3)), (4,)),
        lambda: bcast.reduce_to_input(np.ones((2, 4)), (3,), target_shape=(2, 3)),
    ],
)
def test_broadcast_errors(call):
    with pytest.raises(bcast.BroadcastError):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: bcast.broadcast(np.ones(3), "23"),
        lambda: bcast.broadcast(np.ones(3), (2, 3.0)),
        lambda: bcast.broadcast(np.ones(3), None),
        lambda: bcast.broadcast(np.ones(3), (2, 3), 5),
        lambda: bcast.broadcast(np.ones(3), (2, 3), axes_mapping=[0]),
        lambda: bcast.broadcast(np.ones(3), (2, 3), "explicit", broadcast_axes=[0]),
        lambda: bcast.broadcast(np.ones(3), (2, 3), axis=0),
        lambda: bcast.broadcast(np.ones(3), (2, 3), "pdpd", axis=0.5),
        lambda: bcast.broadcast(np.array([object()]), (2, 1)),
        lambda: bcast.broadcast(np.ones(3, np.complex64), (2, 3)),
        lambda: bcast.broadcast(np.array([b"ab"]), (2, 1)),
        lambda: bcast.broadcast(np.array(["2020-01-01"], "M8[D]"), (2, 1)),
        lambda: bcast.broadcast(None, (2,)),
        lambda: bcast.broadcast(np.ones(3), (2, 3), oops=1),
        lambda: bcast.reduce_to_input(np.ones((2, 3), bool), (3,)),
        lambda: bcast.reduce_to_input(np.array([["a"]]), (1,)),
    ],
)
def test_type_errors(call):
    with pytest.raises(TypeError):
        call()


def test_unknown_mode_is_value_error():
    with pytest.raises(ValueError, match="unknown broadcast mode 'max'"):
        bcast.broadcast(np.ones(3), (2, 3), "max")


# --- threads and the GIL ------------------------------------------------------------------


def test_gil_is_released_while_the_kernel_runs():
    """The main thread runs Python code while another thread's broadcast is in progress.

    With a switch interval of a minute, a thread that holds the GIL through a C call is
    never made to give it up, so no main-thread timestamp could fall between the worker's
    timestamps before and after the call (checked against `b"x" * N`, which holds the GIL:
    0 of them). The main loop gives the GIL up itself at each `sleep(0)`, so the worker gets
    it back as soon as its call returns."""
    x = np.arange(64, dtype=np.float32).reshape(64, 1, 1)
    shape = (64, 512, 512)  # 64 MiB
    t = {}
    started, done = threading.Event(), threading.Event()

    def work():
        started.set()
        t["start"] = time.perf_counter()
        bcast.broadcast(x, shape)
        t["end"] = time.perf_counter()
        done.set()

    stamps = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(60)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        started.wait()
        while not done.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0)
        worker.join()
    finally:
        sys.setswitchinterval(old)
    inside = sum(t["start"] < s < t["end"] for s in stamps)
    assert inside > 0, (len(stamps), t)


def test_many_threads_same_inputs():
    x = sample(np.float64, (1, 300, 1), seed=3)
    want = np.broadcast_to(x, (8, 300, 50)).copy()
    results = [None] * 12
    errors = []

    def work(i):
        try:
            for _ in range(5):
                results[i] = bcast.broadcast(x, (8, 300, 50))
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for r in results:
        assert_bit_equal(r, want)


# --- docs ---------------------------------------------------------------------------------


def test_docstring_examples_run():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    # The native module's functions, and the element-wise ones the package makes from the op
    # table (every one has an example).
    tests = [t for t in finder.find(bcast._bcast, "bcast") + finder.find(bcast, "bcast") if t.examples]
    names = {t.name.rsplit(".", 1)[-1] for t in tests}
    assert {"broadcast", "broadcast_arrays", "output_shape", "broadcast_shapes", "reduce_to_input"} <= names
    assert {name for name, *_ in bcast._ops()} <= names, {name for name, *_ in bcast._ops()} - names
    for t in tests:
        runner.run(t)
    assert runner.failures == 0


def test_help_has_numpy_sections():
    for f in (bcast.broadcast, bcast.broadcast_arrays, bcast.output_shape, bcast.broadcast_shapes, bcast.reduce_to_input):
        for section in ("Parameters\n", "Returns\n", "Raises\n", "Examples\n"):
            assert section in f.__doc__, (f.__name__, section)
    assert "axis=-1" in bcast.broadcast.__text_signature__


def test_readme_python_blocks_run():
    """The package README's Python examples run as written."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_stubs_and_py_typed_ship_with_the_package():
    """The installed package (the wheel, in CI) has py.typed and stubs whose parameters are
    the functions' own, in order and kind."""
    import ast
    import inspect
    from pathlib import Path

    pkg = Path(bcast.__file__).parent
    assert (pkg / "py.typed").is_file()
    tree = ast.parse((pkg / "__init__.pyi").read_text(encoding="utf-8"))
    stubbed = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            a = node.args
            params = [(p.arg, "positional-only") for p in a.posonlyargs]
            params += [(p.arg, "positional") for p in a.args]
            params += [("*" + a.vararg.arg, "var")] if a.vararg else []
            params += [(p.arg, "keyword") for p in a.kwonlyargs]
            params += [("**" + a.kwarg.arg, "var-keyword")] if a.kwarg else []
            stubbed.setdefault(node.name, params)
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional-only",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.VAR_KEYWORD: "var-keyword",
        inspect.Parameter.VAR_POSITIONAL: "var",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
    }
    for name in bcast.__all__:
        f = getattr(bcast, name)
        if not callable(f) or isinstance(f, type):
            continue
        sig = inspect.signature(f)
        params = [
            ({inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name, kinds[p.kind])
            for p in sig.parameters.values()
        ]
        assert stubbed.get(name) == params, (name, stubbed.get(name), params)


def test_stubs_list_exactly_the_op_table():
    """The stub's element-wise functions are the library's op table, no more, no fewer (the
    parameters are checked against the functions above)."""
    import ast
    from pathlib import Path

    tree = ast.parse((Path(bcast.__file__).parent / "__init__.pyi").read_text(encoding="utf-8"))
    stubbed = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    broadcasting = {"broadcast", "broadcast_arrays", "output_shape", "broadcast_shapes", "reduce_to_input"}
    table = [name for name, *_ in bcast._ops()]
    assert len(table) == len(set(table))
    expressions = {"evaluate"}
    assert stubbed - broadcasting - expressions == set(table)
    assert set(bcast.__all__) == broadcasting | expressions | set(table) | {"BroadcastError", "Context", "Expression", "PreparedOp"}


def test_docs_cover_exactly_the_op_table():
    from bcast import _docs

    assert set(_docs.DOCS) == {name for name, *_ in bcast._ops()}
    for name, fewest, most, _, attrs in bcast._ops():
        doc = _docs.DOCS[name]
        # The operand names the docs give fit the table's count.
        if most is None:
            assert len(doc.operands) == 1 and doc.operands[0].startswith("*"), name
        else:
            assert len(doc.operands) == fewest == most, name
        for attribute, _ in attrs:
            assert attribute in getattr(bcast, name).__doc__, (name, attribute)
