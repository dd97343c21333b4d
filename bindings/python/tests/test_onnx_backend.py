"""bcast as an ONNX backend (bcast.onnx), through ONNX's own backend test runner
(onnx.backend.test.BackendTest) filtered to the ONNX ops that broadcast.

Every selected node test either passes or, when bcast.onnx refuses it because the op needs a
function the package does not have yet, or bcast's function does not take the element type
(bcast.onnx.Unsupported, reasons "op not in bcast yet" / "type not in bcast"), is an expected
failure whose reason names what is missing: nothing is skipped, so the counts show what is
left. A wrong answer, or a refusal of anything else, fails.
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
    try:
        case = RUNNER["case"](name)
        getattr(case, name)()
    except backend.Unsupported as e:
        # Only what the package lacks is expected; any other refusal fails.
        for gap in (backend.NOT_YET, backend.TYPE_GAP):
            if e.reason.startswith(gap):
                pytest.xfail(f"{gap}: {e}")
        raise


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


def test_inexact_cast_and_openvino_extremum_refused():
    from onnx import TensorProto, helper

    cast = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT32)
    with pytest.raises(backend.Unsupported, match="do not convert exactly"):
        backend.run_node(cast, [np.array([1.5], np.float32)])
    assert backend.run_node(cast, [np.array([2.0], np.float32)])[0].tolist() == [2]
    if not hasattr(bcast, "max"):
        node = helper.make_node("Max", ["a", "b"], ["c"])
        with pytest.raises(backend.Unsupported, match="NaN"):
            backend.run_node(node, [np.array([1.0, np.nan], np.float32), np.array([np.nan, 1.0], np.float32)])
        with pytest.raises(backend.Unsupported, match="-0.0"):
            backend.run_node(node, [np.array([-0.0], np.float32), np.array([0.0], np.float32)])
