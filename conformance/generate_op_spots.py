#!/usr/bin/env python3
"""Spot values for the op-table tests (tests/eltwise_ops.rs): small inputs run through the
runtimes' own references, written with every value's bits so the test compares exactly.

- OpenVINO (its reference `evaluate`, called on the node): FakeQuantize, PRelu,
  BitwiseLeftShift / BitwiseRightShift (i32: the only type the reference folds).
- onnx.reference (ReferenceEvaluator): Sum, Mean, Max, Min, BitShift (opset 28: signed types
  too), Mod (fmod 0 and 1), Div, Pow, PRelu.
- numpy, by the spec's formula, where onnx.reference departs from the spec: Sum (its Python
  `sum()` starts from the integer 0, so a sum of -0.0s comes out +0.0) and PRelu (it tests
  `x > 0`, so a zero takes the slope: `f(x) = x for x >= 0` in the spec).
Not here: Sum and Mean on integers (ONNX lists float types only; bcast refuses them), and an
integer Pow base with a float exponent whose result is NaN or out of range (numpy's cast back
is undefined there: x86 gives the type's minimum, other CPUs saturate).

Writes tests/data/eltwise_op_spots.json.  Run: python3 conformance/generate_op_spots.py
(versions: openvino 2026.4.1, onnx 1.23.2, numpy 2.x).
"""
import json
import pathlib

import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator
import openvino as ov
from openvino import opset15 as ops

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "eltwise_op_spots.json"
rng = np.random.default_rng(28)

NAMES = {np.float16: "f16", np.float32: "f32", np.float64: "f64", np.int8: "i8", np.int16: "i16",
         np.int32: "i32", np.int64: "i64", np.uint8: "u8", np.uint16: "u16", np.uint32: "u32",
         np.uint64: "u64", np.bool_: "boolean"}
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def enc(a):
    a = np.ascontiguousarray(a)
    name = NAMES[a.dtype.type]
    raw = a.astype(np.uint8) if a.dtype == np.bool_ else a.view(BITS[a.dtype.itemsize])
    return {"dtype": name, "shape": list(a.shape), "bits": [int(v) for v in raw.reshape(-1)]}


cases = []


def add(op, attrs, inputs, output, source):
    if output is None:
        return
    cases.append({"op": op, "attrs": attrs, "source": source,
                  "inputs": [enc(a) for a in inputs], "output": enc(output)})


# --- OpenVINO reference ---------------------------------------------------------------
def ov_eval(node, arrays):
    """The reference's output, or None where it has no evaluate for the inputs."""
    ins = [ov.Tensor(np.ascontiguousarray(a)) for a in arrays]
    out = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
    if not node.evaluate([out], ins):
        print("no evaluate:", node.get_type_name(), [(a.dtype.name, a.shape) for a in arrays])
        return None
    return out.data.copy()


def params(arrays):
    return [ops.parameter(list(a.shape), a.dtype) for a in arrays]


for dt in (np.float32, np.float16):
    for bshape in [(), (1, 3, 1, 1), (3, 1, 1)]:
        for levels in (256, 255, 16, 2):
            x = (rng.standard_normal((2, 3, 4, 5)) * 3).astype(dt)
            x.reshape(-1)[:4] = [np.nan, -0.0, 0.0, np.inf]
            il = rng.uniform(-3, -1, bshape).astype(dt)
            ih = rng.uniform(1, 3, bshape).astype(dt)
            ol = rng.uniform(-2, -1, bshape).astype(dt)
            oh = rng.uniform(0.5, 2, bshape).astype(dt)
            arrays = [x, il, ih, ol, oh]
            got = ov_eval(ops.fake_quantize(*params(arrays), levels), arrays)
            add("fake_quantize", {"levels": levels}, arrays, got, "openvino-reference")
# Bounds crossed (input_low > input_high) and equal.
x = np.array([np.nan, 0.5, -0.0, 2.0, -3.0, 0.25], np.float32)
for il, ih in [(1.0, 0.0), (0.0, 0.0)]:
    arrays = [x, np.float32(il), np.float32(ih), np.float32(-1), np.float32(1)]
    arrays = [np.asarray(a) for a in arrays]
    add("fake_quantize", {"levels": 3}, arrays,
        ov_eval(ops.fake_quantize(*params(arrays), 3), arrays), "openvino-reference")

for dt in (np.float32, np.float16, np.int32):
    x = (rng.standard_normal((2, 3, 4)) * 4).astype(dt)
    if dt != np.int32:
        x.reshape(-1)[:3] = [np.nan, -0.0, 0.0]
    for slope in [rng.standard_normal(3), rng.standard_normal(4), rng.standard_normal((3, 1)),
                  np.array(0.25)]:
        s = (slope * 3).astype(dt) if dt == np.int32 else slope.astype(dt)
        add("prelu", {}, [x, s], ov_eval(ops.prelu(*params([x, s])), [x, s]), "openvino-reference")

a = np.array([1, 5, -3, 7, 1, 1, 1, -8, 123456], np.int32)
b = np.array([0, 1, 1, 8, 64, 70, -1, 33, 31], np.int32)
add("bitwise_left_shift", {}, [a, b], ov_eval(ops.bitwise_left_shift(*params([a, b])), [a, b]),
    "openvino-reference")
add("bitwise_right_shift", {}, [a, b], ov_eval(ops.bitwise_right_shift(*params([a, b])), [a, b]),
    "openvino-reference")


# --- onnx.reference --------------------------------------------------------------------
def onnx_run(op_type, arrays, opset=18, **attrs):
    names = [f"x{i}" for i in range(len(arrays))]
    node = helper.make_node(op_type, names, ["y"], **attrs)
    elem = lambda a: helper.np_dtype_to_tensor_dtype(a.dtype)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, elem(a), list(a.shape)) for n, a in zip(names, arrays)],
        [helper.make_tensor_value_info("y", elem(arrays[0]), None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ReferenceEvaluator(model).run(None, dict(zip(names, arrays)))[0]


def reference(op, arrays):
    """onnx.reference, but Sum by the spec (numpy's add, left to right)."""
    if op == "Sum":
        out = arrays[0]
        for a in arrays[1:]:
            out = np.add(out, a)
        return np.broadcast_to(out, np.broadcast_shapes(*[a.shape for a in arrays])).copy()
    return onnx_run(op, arrays)


def source(op):
    return "numpy" if op == "Sum" else "onnx-reference"


def floats(shape, dt, specials=True):
    a = (rng.standard_normal(shape) * 3).astype(dt)
    if specials and a.size >= 4:
        a.reshape(-1)[:4] = [np.nan, -0.0, 0.0, -np.inf]
    return a


for dt in (np.float32, np.float16, np.float64):
    # Mean's reference adds in place into operand 0, so operand 0 carries the full shape.
    for shapes in [[(2, 3)], [(2, 3), (3,)], [(4, 2, 3), (2, 1), (3,), ()], [(2, 2)] * 5]:
        arrays = [floats(s, dt) for s in shapes]
        for op in ("Sum", "Mean", "Max", "Min"):
            add(op.lower(), {}, arrays, reference(op, arrays), source(op))
    # Ties of signed zeros and NaN payloads for Max/Min.
    z = np.array([-0.0, 0.0, -0.0, np.nan, 1.0], dt)
    w = np.array([0.0, -0.0, -0.0, 1.0, np.nan], dt)
    for op in ("Max", "Min", "Sum"):
        add(op.lower(), {}, [z, w], reference(op, [z, w]), source(op))
for dt in (np.int32, np.uint8, np.int64):
    arrays = [rng.integers(-50 if dt != np.uint8 else 0, 100, s).astype(dt)
              for s in [(3, 4), (4,), (3, 1)]]
    for op in ("Max", "Min"):
        add(op.lower(), {}, arrays, onnx_run(op, arrays), "onnx-reference")

for dt in (np.uint8, np.uint16, np.uint32, np.uint64):
    bits = np.iinfo(dt).bits
    a = np.array([1, 0x80, 255, 7, 1, 3], dt)
    b = np.array([0, 7, 1, bits - 1, bits, bits + 3], dt)
    for d in ("LEFT", "RIGHT"):
        add("bit_shift", {"direction": d}, [a, b],
            onnx_run("BitShift", [a, b], opset=28, direction=d), "onnx-reference")
for dt in (np.int8, np.int16, np.int32, np.int64):
    bits = np.iinfo(dt).bits
    a = np.array([1, -1, -128, 7, -5, 3, -3, 5], dt)
    b = np.array([0, 1, 3, bits - 1, bits, bits + 3, -1, -2], dt)
    for d in ("LEFT", "RIGHT"):
        add("bit_shift", {"direction": d}, [a, b],
            onnx_run("BitShift", [a, b], opset=28, direction=d), "onnx-reference")

for dt in (np.float32, np.float16, np.float64):
    a = np.array([-0.0, 0.0, 3.0, -1e-8, 5.0, -5.0, np.inf, 5.0, 7.5, -7.5], dt)
    b = np.array([3.0, -3.0, -3.0, 3.0, np.inf, np.inf, 3.0, 0.0, 2.0, 2.0], dt)
    for fmod in (0, 1):
        add("onnx_mod", {"fmod": fmod}, [a, b], onnx_run("Mod", [a, b], fmod=fmod), "onnx-reference")
    x = floats((3, 4), dt)
    y = floats((4,), dt, specials=False)
    add("onnx_mod", {"fmod": 0}, [x, y], onnx_run("Mod", [x, y], fmod=0), "onnx-reference")
for dt in (np.int8, np.int32, np.uint16):
    a = np.array([-7, 7, -7, 7, 0, -128 if dt == np.int8 else -100], dt) if dt != np.uint16 \
        else np.array([7, 65535, 3, 0], dt)
    b = np.array([2, -2, -2, 2, 3, -1], dt) if dt != np.uint16 else np.array([2, 7, 5, 9], dt)
    for fmod in (0, 1):
        add("onnx_mod", {"fmod": fmod}, [a, b], onnx_run("Mod", [a, b], fmod=fmod), "onnx-reference")
    add("onnx_div", {}, [a, b], onnx_run("Div", [a, b]), "onnx-reference")

for dt in (np.float32, np.float16):
    x = np.abs(floats((3, 4), dt, specials=False)) + dt(0.5)
    y = floats((4,), dt, specials=False)
    add("onnx_pow", {}, [x, y], onnx_run("Pow", [x, y]), "onnx-reference")
for dt in (np.int32, np.int64):
    x = np.array([2, -3, 7, 0, 1, -1], dt)
    y = np.array([3, 3, 11, 0, 40, 5], dt)
    add("onnx_pow", {}, [x, y], onnx_run("Pow", [x, y]), "onnx-reference")

# Pow with base and exponent of different types (opset 15): numpy's promotion, then the
# base's type.
for bdt, edts in [(np.float32, (np.int8, np.int16, np.int32, np.int64, np.uint64, np.float16,
                                np.float64)),
                  (np.float16, (np.uint8, np.int16, np.int32, np.float32, np.float64)),
                  (np.float64, (np.int32, np.float32)),
                  (np.int32, (np.int8, np.int64, np.uint32, np.float32, np.float64)),
                  (np.int64, (np.int32, np.float16))]:
    for edt in edts:
        if np.issubdtype(bdt, np.floating):
            x = (np.abs(rng.standard_normal((3, 4))) * 3 + 0.3).astype(bdt)
        else:
            # Positive under a float exponent: a negative base to a fractional power is NaN
            # and 0 to a negative one is inf, whose casts back to an integer numpy leaves
            # undefined.
            x = rng.integers(1 if np.issubdtype(edt, np.floating) else -9, 10, (3, 4)).astype(bdt)
        if np.issubdtype(edt, np.floating):
            y = rng.uniform(-2.5, 3.5, (4,)).astype(edt)
        else:
            y = rng.integers(0, 7, (4,)).astype(edt)
        add("onnx_pow", {}, [x, y], onnx_run("Pow", [x, y]), "onnx-reference")

for dt in (np.float32, np.float16):
    x = floats((2, 3, 4), dt)
    for s in [floats((4,), dt, False), floats((3, 1), dt, False), np.array(0.5, dt)]:
        add("onnx_prelu", {}, [x, s], np.where(x < 0, x * s, x), "numpy")

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({"generator": "conformance/generate_op_spots.py",
                           "openvino": ov.__version__, "onnx": onnx.__version__,
                           "numpy": np.__version__, "cases": cases}, separators=(",", ":")) + "\n")
print(f"{len(cases)} cases -> {OUT}")
