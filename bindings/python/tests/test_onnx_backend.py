"""bcast as an ONNX backend (bcast.onnx), through ONNX's own backend test runner
(onnx.backend.test.BackendTest) filtered to the ONNX ops that broadcast.

Every selected node test passes: nothing is skipped or expected to fail, and a wrong answer
or a refusal (bcast.onnx.Unsupported) fails.
"""

import re
import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx.backend.test import BackendTest  # noqa: E402

import bcast  # noqa: E402
import bcast.onnx as backend  # noqa: E402

# The ONNX ops that broadcast, as the node tests name them (and their _expanded variants,
# which rebuild the op from others of the list). Not, BitwiseNot: unary, nothing broadcasts.
BROADCASTING = ["add", "sub", "mul", "div", "pow", "mod", "max", "min", "sum", "mean", "equal",
                "greater", "greater_equal", "less", "less_equal", "and", "or", "xor", "bitshift",
                "bitwise_and", "bitwise_or", "bitwise_xor", "prelu", "where", "expand"]
PATTERN = re.compile(r"^test_(" + "|".join(BROADCASTING) + r")(_.*)?_cpu$")


def _node_tests():
    with warnings.catch_warnings():  # the runner builds every node test's data: overflow noise
        warnings.simplefilter("ignore")
        runner = BackendTest(backend.BcastBackend, __name__)
    (case,) = [c for name, c in runner.test_cases.items() if name == "OnnxBackendNodeModelTest"]
    names = sorted(n for n in dir(case) if PATTERN.match(n) and "bitwise_not" not in n)
    return case, names


# Kept in a dict: a unittest.TestCase class at module level would be collected whole.
RUNNER = dict(zip(("case", "names"), _node_tests()))
NAMES = RUNNER["names"]


def test_selection_found():
    # 222 node tests in onnx 1.23; a renamed folder must not make this file pass by running
    # nothing.
    assert len(NAMES) >= 200, len(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_onnx_node(name):
    case = RUNNER["case"](name)
    getattr(case, name)()


def test_refusals_are_clear():
    from onnx import helper

    node = helper.make_node("Relu", ["x"], ["y"])
    with pytest.raises(NotImplementedError, match="Relu: not an op that bcast implements"):
        backend.run_node(node, [np.ones(2, np.float32)])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", 1, [2])],
                              [helper.make_tensor_value_info("y", 1, [2])])
    with pytest.raises(backend.Unsupported, match="Relu"):
        backend.prepare(helper.make_model(graph))
    assert backend.supports_device("CPU") and not backend.supports_device("CUDA")


def test_graph_with_constant_cast_identity():
    from onnx import TensorProto, helper, numpy_helper

    nodes = [
        helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.array([1, 2, 3], np.int32))),
        helper.make_node("Cast", ["c"], ["cf"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["x", "cf"], ["s"]),
        helper.make_node("Identity", ["s"], ["y"]),
        helper.make_node("Expand", ["y", "shape"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.array([4, 1, 1], np.int64), "shape")])
    x = np.array([[0.5], [-1.0]], np.float32)
    (z,) = backend.run_model(helper.make_model(graph), [x])
    want = np.broadcast_to(x + np.array([1, 2, 3], np.float32), (4, 2, 3))
    assert z.dtype == np.float32 and np.array_equal(z, want)


def test_inexact_cast_refused_and_onnx_semantics_where_openvino_differs():
    from onnx import TensorProto, helper

    cast = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT32)
    with pytest.raises(backend.Unsupported, match="do not convert exactly"):
        backend.run_node(cast, [np.array([1.5], np.float32)])
    assert backend.run_node(cast, [np.array([2.0], np.float32)])[0].tolist() == [2]
    # Max: numpy's (NaN propagates), not OpenVINO's Maximum (the first operand wins).
    node = helper.make_node("Max", ["a", "b", "c"], ["d"])
    a, b, c = (np.array([1.0, np.nan], np.float32), np.array([np.nan, 1.0], np.float32),
               np.array(0.0, np.float32))
    (got,) = backend.run_node(node, [a, b, c])
    assert np.isnan(got).all() and np.isnan(np.maximum(np.maximum(a, b), c)).all()
    assert not np.isnan(bcast.maximum(a, b)).all()
    # Div truncates integers, Mod (fmod=0) floors floats as numpy's mod, PRelu right-aligns.
    div = helper.make_node("Div", ["a", "b"], ["c"])
    assert backend.run_node(div, [np.array([-7], np.int32), np.array([2], np.int32)])[0].tolist() == [-3]
    mod = helper.make_node("Mod", ["a", "b"], ["c"])
    x, y = np.array([-7.5, 0.0], np.float32), np.array([2.0, -3.0], np.float32)
    got = backend.run_node(mod, [x, y])[0]
    assert got.tobytes() == np.mod(x, y).tobytes()
    prelu = helper.make_node("PRelu", ["x", "s"], ["y"])
    x = -np.ones((1, 2, 3), np.float32)
    s3 = np.array([1.0, 2.0, 3.0], np.float32)
    assert np.array_equal(backend.run_node(prelu, [x, s3])[0], np.where(x < 0, x * s3, x))


def test_string_equal():
    from onnx import helper

    node = helper.make_node("Equal", ["a", "b"], ["c"])
    a = np.array([["ab", "c"], ["", "ab"]], dtype=object)
    b = np.array(["ab", "x"], dtype=object)
    (got,) = backend.run_node(node, [a, b])
    assert got.dtype == bool and got.tolist() == (a == b).tolist()


def test_a_graph_far_deeper_than_any_model_runs():
    # 20,000 Add nodes in one chain, each reading the one before: the backend walks the
    # graph in a loop, and nothing in it recurses on depth.
    from onnx import TensorProto, helper

    n = 20000
    nodes = [helper.make_node("Add", ["x" if k == 0 else f"t{k - 1}", "x"], [f"t{k}"]) for k in range(n)]
    graph = helper.make_graph(
        nodes, "deep", [helper.make_tensor_value_info("x", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info(f"t{n - 1}", TensorProto.INT64, [2])])
    x = np.array([3, -7], np.int64)
    (y,) = backend.run_model(helper.make_model(graph), [x])
    assert np.array_equal(y, x * (n + 1))


def test_node_tests_run_on_prepared_ops():
    """The node tests above run on prepared ops: every node of bcast's table in their models
    gets one at load (their models declare every input's dtype and shape), but Equal on
    strings, which runs unprepared."""
    import os

    from onnx.backend.test.loader import load_model_tests

    wanted = {n[: -len("_cpu")] for n in NAMES}
    nodes = prepared = 0
    unprepared = []
    for case in load_model_tests(kind="node"):
        if case.name not in wanted:
            continue
        model = onnx.load(os.path.join(case.model_dir, "model.onnx")) if case.model_dir else case.model
        rep = backend.prepare(model)
        n = sum(isinstance(backend.OPS.get(node.op_type), backend._Eltwise) for node in model.graph.node)
        nodes += n
        prepared += rep.prepared_at_load
        if rep.prepared_at_load < n:
            unprepared.append(case.name)
    assert nodes >= 200, nodes
    assert sorted(unprepared) == ["test_equal_string", "test_equal_string_broadcast"], unprepared
    assert prepared == nodes - 2
