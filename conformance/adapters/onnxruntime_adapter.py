#!/usr/bin/env python3
"""ONNX Runtime (CPU) as a runtime: `python3 onnxruntime_adapter.py {case} {out}`.

One ONNX node per case (opset 18), run by onnxruntime.InferenceSession on the CPU provider:
- broadcast `bidirectional`: Expand(data, shape) (ONNX's Expand is exactly the bidirectional
  rule); every other mode, `multi` and reduce: exit 3 (ONNX has no such op);
- element-wise under `numpy` auto-broadcast (ONNX's multidirectional rule): Add, Sub, Mul, Div
  (floats; integers only with pythondiv false: ONNX's Div truncates), Max, Min, Pow, Mod
  (fmod=0 for floor_mod on integers, fmod=1 for mod), Equal, Not(Equal) for not_equal, Less,
  LessOrEqual, Greater, GreaterOrEqual, And, Or, Xor; Select: Where. `none` and `pdpd`
  auto-broadcast, squared_difference, floor_mod on floats and pythondiv integer division:
  exit 3 (ONNX has no such op); an op/type pair ONNX does not define or ORT has no kernel
  for: exit 3.
- IR model cases: exit 3.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _adapter import Refused, Unsupported, main  # noqa: E402

import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

ELTWISE = {
    "add": "Add", "subtract": "Sub", "multiply": "Mul", "divide": "Div", "maximum": "Max",
    "minimum": "Min", "power": "Pow", "floor_mod": "Mod", "mod": "Mod", "equal": "Equal",
    "not_equal": "Equal", "less": "Less", "less_equal": "LessOrEqual", "greater": "Greater",
    "greater_equal": "GreaterOrEqual", "logical_and": "And", "logical_or": "Or",
    "logical_xor": "Xor",
}


COMPARE = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


def elem_type(a):
    if a.dtype.kind == "U":
        return TensorProto.STRING
    return helper.np_dtype_to_tensor_dtype(a.dtype)


def graph(case):
    """(nodes, input arrays, extra initializers) of the case's ONNX graph; output 'y'."""
    xs = list(case.inputs)
    if case.op == "broadcast":
        if case.get("mode") != "bidirectional":
            raise Unsupported(f"ONNX has no Broadcast with mode {case.get('mode')}")
        target = case.get("target_shape")
        try:
            shape = np.array(target, dtype=np.int64)
        except OverflowError as e:
            raise Refused(f"target_shape {target}: {e}") from None
        init = [helper.make_tensor("shape", TensorProto.INT64, [len(target)], shape.tolist())]
        return [helper.make_node("Expand", ["x0", "shape"], ["y"])], xs, init
    if case.op in ("eltwise", "select"):
        ab = case.get("auto_broadcast", "numpy")
        if ab != "numpy":
            raise Unsupported(f"ONNX has only numpy-style broadcasting, not {ab}")
        names = [f"x{i}" for i in range(len(xs))]
        if case.op == "select":
            return [helper.make_node("Where", names, ["y"])], xs, []
        op = case.get("eltwise")
        if op not in ELTWISE:
            raise Unsupported(f"ONNX has no {op}")
        is_float = xs[0].dtype.kind == "f"
        attrs = {}
        if op == "divide" and not is_float and case.get("pythondiv", True):
            raise Unsupported("ONNX's integer Div truncates; it has no floor division")
        if op == "floor_mod":
            if is_float:
                raise Unsupported("ONNX's Mod on floats is fmod only")
            attrs["fmod"] = 0
        if op == "mod":
            attrs["fmod"] = 1
        if op == "not_equal":
            return [helper.make_node("Equal", names, ["eq"]),
                    helper.make_node("Not", ["eq"], ["y"])], xs, []
        return [helper.make_node(ELTWISE[op], names, ["y"], **attrs)], xs, []
    raise Unsupported(f"ONNX has no op for {case.op}")


def run(case):
    nodes, xs, init = graph(case)
    # ONNX takes native byte order only; the value is the same.
    xs = [a.astype(a.dtype.newbyteorder("=")) if a.dtype.byteorder == ">" else a for a in xs]
    inputs = [helper.make_tensor_value_info(f"x{i}", elem_type(a), list(a.shape))
              for i, a in enumerate(xs)]
    if case.get("eltwise") in COMPARE:
        y_type = TensorProto.BOOL
    else:
        y_type = elem_type(xs[1] if case.op == "select" else xs[0])
    output = helper.make_tensor_value_info("y", y_type, None)
    model = helper.make_model(helper.make_graph(nodes, "case", inputs, [output], init),
                              opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    try:
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001
        if "Could not find an implementation" in str(e) or "NOT_IMPLEMENTED" in str(e) \
                or ("INVALID_GRAPH" in str(e) and "Type Error: Type" in str(e)):  # ONNX has no such type for the op
            raise Unsupported(f"ONNX Runtime has no kernel: {str(e).splitlines()[0][:200]}") from None
        raise
    feeds = {f"x{i}": (a if a.dtype.kind == "U" else np.ascontiguousarray(a)) if a.ndim else a
             for i, a in enumerate(xs)}
    (y,) = session.run(None, feeds)
    y = np.asarray(y)
    if y.dtype == object:
        y = y.astype(str)
    return [y]


if __name__ == "__main__":
    _ = onnx
    main(run)
