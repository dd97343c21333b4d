"""bcast.onnx's prepared nodes: prepare builds a bcast.PreparedOp per element-wise node whose
inputs' dtypes and shapes the graph declares or implies; a run on other shapes builds (and
keeps) one for those. Expected values are onnx.reference.ReferenceEvaluator's, bit for bit."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import bcast  # noqa: E402
import bcast.onnx as backend  # noqa: E402
from conftest import assert_bit_equal  # noqa: E402

F, I32, B = TensorProto.FLOAT, TensorProto.INT32, TensorProto.BOOL
RNG = np.random.default_rng(51)

# The functions the graphs' nodes call when they run unprepared.
FUNCTIONS = ["add", "subtract", "multiply", "onnx_div", "max", "min", "less", "greater", "equal",
             "select", "logical_and", "bitwise_xor", "sum", "onnx_mod"]


def check(model, feeds, rep):
    """The backend's outputs (``rep`` run on ``feeds``) equal the reference evaluator's, bit
    for bit."""
    want = ReferenceEvaluator(model).run(None, feeds)
    got = rep.run(dict(feeds))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_bit_equal(g, w)


def static_model():
    """Twelve nodes of the table, all with static shapes (graph inputs, an initializer, a
    Constant and a Cast, and the prepared nodes' outputs), float and int32 paths."""
    nodes = [
        helper.make_node("Add", ["x", "y"], ["a"]),                   # (2,3,4) + (3,1)
        helper.make_node("Mul", ["a", "w"], ["b"]),                   # * (4,) initializer
        helper.make_node("Sub", ["b", "x"], ["c"]),
        helper.make_node("Div", ["c", "y"], ["d"]),
        helper.make_node("Max", ["d", "a", "w"], ["e"]),              # three inputs
        helper.make_node("Less", ["e", "b"], ["m"]),
        helper.make_node("Where", ["m", "e", "c"], ["f"]),
        helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(np.array([3, -1, 2, 5], np.int32))),
        helper.make_node("Cast", ["m"], ["mi"], to=I32),
        helper.make_node("BitwiseXor", ["mi", "k"], ["g"]),
        helper.make_node("Constant", [], ["d2"], value=numpy_helper.from_array(np.array([-3, 2, -2, 3], np.int32))),
        helper.make_node("Mod", ["g", "d2"], ["h"], fmod=1),          # signs differ: fmod != mod
        helper.make_node("Greater", ["h", "mi"], ["n"]),
        helper.make_node("And", ["n", "m"], ["o"]),
        helper.make_node("Sum", ["f", "e", "a"], ["s"]),
    ]
    graph = helper.make_graph(
        nodes, "static",
        [helper.make_tensor_value_info("x", F, [2, 3, 4]), helper.make_tensor_value_info("y", F, [3, 1])],
        [helper.make_tensor_value_info(n, t, None) for n, t in (("s", F), ("h", I32), ("o", B))],
        initializer=[numpy_helper.from_array(np.array([0.5, -2.0, 3.0, 0.25], np.float32), "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


ELTWISE_IN_STATIC = 12  # every node but the Constants and Cast


def feeds_static():
    x = (RNG.standard_normal((2, 3, 4)) * 3).astype(np.float32)
    y = (RNG.standard_normal((3, 1)) + 4).astype(np.float32)
    return {"x": x, "y": y}


def test_static_graph_is_prepared_at_load_and_runs_as_the_reference():
    model = static_model()
    rep = backend.prepare(model)
    assert rep.prepared_at_load == ELTWISE_IN_STATIC
    assert rep.prepared_count == ELTWISE_IN_STATIC
    for _ in range(3):
        check(model, feeds_static(), rep)
    # Runs on the declared shapes built nothing more.
    assert rep.prepared_count == ELTWISE_IN_STATIC


def test_prepared_nodes_do_not_call_the_functions(monkeypatch):
    """The runs go through the prepared ops: with every function that the unprepared path
    calls broken, the graph still runs, and right."""
    model = static_model()
    rep = backend.prepare(model)

    def broken(*args, **kwargs):
        raise AssertionError("the unprepared path ran")

    for name in FUNCTIONS:
        monkeypatch.setattr(bcast, name, broken)
    check(model, feeds_static(), rep)
    # ... and the unprepared path does call them (the patch is effective).
    with pytest.raises(AssertionError, match="unprepared path"):
        backend.run_node(helper.make_node("Add", ["p", "q"], ["r"]), [np.ones(2, np.float32)] * 2)


def dynamic_model():
    """A dynamic batch dim: nothing downstream of x is known at load; Mul(w, v) is."""
    nodes = [
        helper.make_node("Mul", ["w", "v"], ["wv"]),                  # (3,) * (1,): static
        helper.make_node("Add", ["x", "wv"], ["a"]),                  # (N,3) + (3,)
        helper.make_node("Sub", ["a", "x"], ["b"]),
        helper.make_node("Greater", ["a", "b"], ["m"]),
        helper.make_node("Where", ["m", "a", "x"], ["y"]),
        helper.make_node("Min", ["y", "w"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "dynamic",
        [helper.make_tensor_value_info("x", F, ["N", 3]), helper.make_tensor_value_info("v", F, [1])],
        [helper.make_tensor_value_info("z", F, ["N", 3]), helper.make_tensor_value_info("m", B, ["N", 3])],
        initializer=[numpy_helper.from_array(np.array([1.5, -0.5, 0.0], np.float32), "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_dynamic_dim_prepares_each_shape_once():
    model = dynamic_model()
    rep = backend.prepare(model)
    assert rep.prepared_at_load == 1  # Mul(w, v) only
    v = np.array([2.0], np.float32)
    for n in (1, 4, 7, 4, 1, 7):
        x = (RNG.standard_normal((n, 3)) * 2).astype(np.float32)
        check(model, {"x": x, "v": v}, rep)
    # Five nodes depend on N: one prepared op per shape seen (3), and Mul's one.
    assert rep.prepared_count == 1 + 5 * 3
    # More shapes than a node keeps: the oldest go, results stay right.
    for n in range(8, 8 + backend.CACHED_SHAPES):
        x = RNG.standard_normal((n, 3)).astype(np.float32)
        check(model, {"x": x, "v": v}, rep)
    assert rep.prepared_count == 1 + 5 * backend.CACHED_SHAPES


def test_declared_shape_not_the_fed_one():
    """A graph that declares a shape and is fed another (which ONNX runtimes refuse, and
    this backend always ran) still runs right: the fed shape gets its own prepared op."""
    model = static_model()
    rep = backend.prepare(model)
    x = RNG.standard_normal((5, 3, 4)).astype(np.float32)
    y = (RNG.standard_normal((3, 1)) + 4).astype(np.float32)
    check(model, {"x": x, "y": y}, rep)
    assert rep.prepared_count > ELTWISE_IN_STATIC


def test_context_and_threads():
    model = static_model()
    ctx = bcast.Context(threads=2)
    assert backend.prepare(model, context=ctx).context is ctx
    rep = backend.prepare(model, threads=1)
    assert rep.context.threads == 1
    check(model, feeds_static(), rep)
    assert backend.prepare(model).context is None
    with pytest.raises(TypeError):
        backend.prepare(model, context=ctx, threads=2)


def test_unprepared_nodes_keep_their_semantics():
    """String Equal (object arrays in, unprepared), Expand, and a node whose inputs bcast
    refuses (its error as before)."""
    nodes = [helper.make_node("Equal", ["s", "t"], ["e"]),
             helper.make_node("Expand", ["e", "shape"], ["f"])]
    graph = helper.make_graph(
        nodes, "strings",
        [helper.make_tensor_value_info("s", TensorProto.STRING, [2, 2]),
         helper.make_tensor_value_info("t", TensorProto.STRING, [2])],
        [helper.make_tensor_value_info("f", B, None)],
        initializer=[numpy_helper.from_array(np.array([3, 2, 2], np.int64), "shape")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    rep = backend.prepare(model)
    assert rep.prepared_at_load == 0
    s = np.array([["ab", "c"], ["", "ab"]], dtype=object)
    t = np.array(["ab", "x"], dtype=object)
    (got,) = rep.run([s, t])
    want = np.broadcast_to(s == t, (3, 2, 2))
    assert got.dtype == bool and got.tolist() == want.tolist()
    assert rep.prepared_count == 0

    # Add on bool: the function refuses the dtype, the backend says so (Unsupported), as
    # before preparing existed.
    add = helper.make_node("Add", ["p", "q"], ["r"])
    graph = helper.make_graph([add], "bools", [helper.make_tensor_value_info("p", B, [2]),
                                               helper.make_tensor_value_info("q", B, [2])],
                              [helper.make_tensor_value_info("r", B, [2])])
    rep = backend.prepare(helper.make_model(graph))
    assert rep.prepared_at_load == 0
    with pytest.raises(backend.Unsupported, match="type not in bcast"):
        rep.run([np.array([True, False])] * 2)

    # An integer division by zero: bcast's error, prepared or not.
    div = helper.make_node("Div", ["p", "q"], ["r"])
    graph = helper.make_graph([div], "div", [helper.make_tensor_value_info("p", I32, [2]),
                                             helper.make_tensor_value_info("q", I32, [2])],
                              [helper.make_tensor_value_info("r", I32, [2])])
    rep = backend.prepare(helper.make_model(graph))
    assert rep.prepared_at_load == 1
    with pytest.raises(bcast.BroadcastError, match="zero"):
        rep.run([np.array([1, 2], np.int32), np.array([1, 0], np.int32)])
    with pytest.raises(bcast.BroadcastError, match="zero"):
        backend.run_node(div, [np.array([1, 2], np.int32), np.array([1, 0], np.int32)])
