#!/usr/bin/env python3
"""IR models with element-wise layers: conformance/ir/eltwise_* and conformance/ir_bad/eltwise_*.

    python3 conformance/ir/generate_eltwise.py

Requirements: conformance/eltwise/requirements.txt (OpenVINO 2026.4.1, numpy 2.4.6).

Good cases, conformance/ir/eltwise_<name>/ (same layout as the other IR cases):
  model.xml, model.bin   saved by openvino.save_model (compress_to_fp16=False, except the
                         fp16_compressed case, saved with True: f32 Consts become f16 + Convert)
  inputs/<Parameter>.npy the inputs
  expected/<Result>.npy  OpenVINO's reference: the saved model is read back, every Parameter
                         is replaced by a Constant holding its input, and
                         openvino.passes.ConstantFolding computes every Result
  case.json              how it was made; per output: the numpy cross-check and what the CPU
                         plugin (INFERENCE_PRECISION_HINT=f32) gave

Bad cases, conformance/ir_bad/eltwise_<name>/: model.xml (+ model.bin) mutated from a good
model's text, error.txt (a short substring the error must contain: the layer's name), case.json
(what was changed and what OpenVINO does with it). All inputs are Parameters, so every bad
model is refused when read or compiled, before inputs matter.

Nodes are built with openvino.utils.node_factory.NodeFactory, which takes every attribute
(the PDPD axis as "auto_broadcast.auto_broadcast_axis", Divide's "m_pythondiv").
"""

import json
import shutil
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BAD = HERE.parent / "ir_bad"


def ovm():
    import openvino as ov
    import openvino.opset13 as ops
    import openvino.passes as ovp
    from openvino.utils.node_factory import NodeFactory
    return ov, ops, ovp, NodeFactory("opset13")


def named(node, name):
    node.set_friendly_name(name)
    return node


def P(name, arr):
    ov, ops, _, _ = ovm()
    et = ov.Type.boolean if arr.dtype == np.bool_ else ov.Type(arr.dtype)
    return named(ops.parameter(list(arr.shape), et, name=name), name)


def E(name, op, inputs, **attrs):
    _, _, _, f = ovm()
    return named(f.create(op, [i.output(0) if hasattr(i, "output") else i for i in inputs], attrs), name)


def R(name, node):
    _, ops, _, _ = ovm()
    return named(ops.result(node), name)


# ----------------------------------------------------------------------------------------
# numpy references (written from the specs; f16 via f32)
# ----------------------------------------------------------------------------------------

def floordiv(a, b):
    return np.floor_divide(a, b)


def truncdiv(a, b):
    q = np.floor_divide(a, b)
    return np.where((q * b != a) & ((a < 0) != (b < 0)), q + 1, q).astype(a.dtype)


def pdpd(b, a_shape, axis):
    start = len(a_shape) - b.ndim if axis == -1 else axis
    dims = list(b.shape)
    while dims and dims[-1] == 1:
        dims.pop()
    shape = [1] * len(a_shape)
    shape[start:start + len(dims)] = dims
    return np.broadcast_to(b.reshape(shape), a_shape)


# ----------------------------------------------------------------------------------------
# The models: name -> (description, inputs, build(inputs) -> [Result], numpy(inputs) -> {Result: array})
# ----------------------------------------------------------------------------------------

F = np.float32
a23 = np.array([[1.5, -2.0, 3.25], [0.0, -0.5, 7.0]], F)
b3 = np.array([2.0, -4.0, 0.5], F)
i23 = np.array([[-7, 7, 5], [0, -8, 100]], np.int32)
j3 = np.array([2, -3, 3], np.int32)
a234 = (np.arange(24, dtype=F).reshape(2, 3, 4) - 10) * 0.75
c3 = np.array([1.0, -2.0, 3.0], F)
bool23 = np.array([[True, False, True], [False, False, True]])
bool3 = np.array([True, False, False])

MODELS = {}


def model(name, description, inputs, ops_numpy):
    def deco(build):
        MODELS[name] = (description, inputs, build, ops_numpy)
        return build
    return deco


def binary(name, op, x, y, ab="numpy", axis=None, np_fn=None, **extra):
    attrs = {"auto_broadcast": ab, **extra}
    if axis is not None:
        attrs["auto_broadcast.auto_broadcast_axis"] = axis
    desc = f"{op} ({ab}{'' if axis is None else f', axis {axis}'}{''.join(f', {k}={v}' for k, v in extra.items())}) on {x.dtype} {list(x.shape)} and {list(y.shape)}"

    @model(name, desc, {"x": x, "y": y}, lambda i: {"z": np_fn(i["x"], i["y"] if ab != "pdpd" else pdpd(i["y"], i["x"].shape, axis))})
    def build(p):
        return [R("z", E(op.lower(), op, [p["x"], p["y"]], **attrs))]


def sqdiff(a, b):
    return (a - b) * (a - b)


binary("eltwise_add_numpy", "Add", a23, b3, np_fn=np.add)
binary("eltwise_add_none", "Add", a23, a23[::-1].copy(), ab="none", np_fn=np.add)
binary("eltwise_subtract_numpy_rank0", "Subtract", a234, np.array(2.5, F), np_fn=np.subtract)
binary("eltwise_multiply_pdpd_axis1", "Multiply", a234, c3, ab="pdpd", axis=1, np_fn=np.multiply)
binary("eltwise_multiply_pdpd_axis_minus1", "Multiply", a234, np.array([1.0, 2.0, -1.0, 0.5], F), ab="pdpd", axis=-1, np_fn=np.multiply)
binary("eltwise_divide_pythondiv_true", "Divide", i23, j3, np_fn=floordiv, m_pythondiv=True)
binary("eltwise_divide_pythondiv_false", "Divide", i23, j3, np_fn=truncdiv, m_pythondiv=False)
binary("eltwise_divide_f32", "Divide", a23, b3, np_fn=np.divide)
binary("eltwise_maximum", "Maximum", a23, np.array([[1.0], [0.0]], F), np_fn=lambda a, b: np.where(a < b, b, a))
binary("eltwise_minimum", "Minimum", i23, j3, np_fn=np.minimum)
binary("eltwise_squared_difference", "SquaredDifference", a23, b3, np_fn=sqdiff)
binary("eltwise_power", "Power", np.abs(a23) + 0.5, np.array([2.0, 0.5, -1.0], F), np_fn=np.power)
binary("eltwise_floor_mod", "FloorMod", i23, j3, np_fn=np.mod)
binary("eltwise_mod", "Mod", i23, j3, np_fn=np.fmod)
binary("eltwise_add_u8_wraps", "Add", np.array([[200, 100], [1, 255]], np.uint8), np.array([100, 200], np.uint8), np_fn=np.add)


@model("eltwise_compare_all", "Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual (numpy) on f32 [2,3] and [3]; six Results",
       {"x": a23, "y": np.array([1.5, -4.0, 7.0], F)},
       lambda i: {n: f(i["x"], i["y"]) for n, f in [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)]})
def _(p):
    return [R(n, E(f"{n}_op", op, [p["x"], p["y"]], auto_broadcast="numpy"))
            for n, op in [("eq", "Equal"), ("ne", "NotEqual"), ("lt", "Less"), ("le", "LessEqual"), ("gt", "Greater"), ("ge", "GreaterEqual")]]


@model("eltwise_logical_all", "LogicalAnd (numpy), LogicalOr (pdpd axis -1), LogicalXor (numpy), LogicalNot on bool",
       {"x": bool23, "y": bool3},
       lambda i: {"and_": np.logical_and(i["x"], i["y"]), "or_": np.logical_or(i["x"], i["y"]),
                  "xor_": np.logical_xor(i["x"], i["y"]), "not_": np.logical_not(i["x"])})
def _(p):
    return [R("and_", E("and_op", "LogicalAnd", [p["x"], p["y"]], auto_broadcast="numpy")),
            R("or_", E("or_op", "LogicalOr", [p["x"], p["y"]], auto_broadcast="pdpd", **{"auto_broadcast.auto_broadcast_axis": -1})),
            R("xor_", E("xor_op", "LogicalXor", [p["x"], p["y"]], auto_broadcast="numpy")),
            R("not_", E("not_op", "LogicalNot", [p["x"]]))]


@model("eltwise_select_numpy", "Select (numpy): cond [2,1,1,2], then [1,1,4,1], else [2] -> [2,1,4,2]",
       {"c": np.array([True, False, False, True]).reshape(2, 1, 1, 2), "t": np.arange(4, dtype=F).reshape(1, 1, 4, 1), "e": np.array([-1.0, -2.0], F)},
       lambda i: {"z": np.where(i["c"], i["t"], i["e"])})
def _(p):
    return [R("z", E("select", "Select", [p["c"], p["t"], p["e"]], auto_broadcast="numpy"))]


@model("eltwise_select_none", "Select (none): three [2,3]",
       {"c": bool23, "t": a23, "e": -a23},
       lambda i: {"z": np.where(i["c"], i["t"], i["e"])})
def _(p):
    return [R("z", E("select", "Select", [p["c"], p["t"], p["e"]], auto_broadcast="none"))]


@model("eltwise_select_pdpd", "Select (pdpd, axis 1): cond [3] and else [3] onto then [2,3,4]",
       {"c": bool3, "t": a234, "e": c3},
       lambda i: {"z": np.where(pdpd(i["c"], (2, 3, 4), 1), i["t"], pdpd(i["e"], (2, 3, 4), 1))})
def _(p):
    return [R("z", E("select", "Select", [p["c"], p["t"], p["e"]], auto_broadcast="pdpd", **{"auto_broadcast.auto_broadcast_axis": 1}))]


@model("eltwise_chain_broadcast", "Broadcast-3 (numpy) [3,1] to [2,3,4], then Add (numpy) [4], Multiply (pdpd axis 1) [3], Greater (numpy) scalar Const, Select (numpy)",
       {"x": np.array([[1.0], [-2.0], [0.5]], F), "y": np.array([0.5, -1.0, 2.0, 0.0], F)},
       lambda i: (lambda s: {"z": np.where(s > 0.0, s, F(0.0) - s).astype(F)})((np.broadcast_to(i["x"], (2, 3, 4)) + i["y"]) * pdpd(c3, (2, 3, 4), 1)))
def _(p):
    ov, ops, _, _ = ovm()
    tgt = named(ops.constant(np.array([2, 3, 4], np.int64)), "target_shape")
    b = E("broadcast", "Broadcast", [p["x"], tgt], mode="numpy")
    s = E("add", "Add", [b, p["y"]], auto_broadcast="numpy")
    k = named(ops.constant(c3), "scale")
    m = E("multiply", "Multiply", [s, k], auto_broadcast="pdpd", **{"auto_broadcast.auto_broadcast_axis": 1})
    zero = named(ops.constant(np.array(0.0, F)), "zero")
    g = E("greater", "Greater", [m, zero], auto_broadcast="numpy")
    n = E("negate", "Subtract", [zero, m], auto_broadcast="numpy")
    return [R("z", E("select", "Select", [g, m, n], auto_broadcast="numpy"))]


@model("eltwise_fp16_compressed", "Add (numpy) of Parameter f32 [2,3] and a Const f32 [3] saved with compress_to_fp16=True: the Const is stored f16 followed by Convert to f32",
       {"x": a23},
       lambda i: {"z": i["x"] + np.array([0.1, 1000.3, -2.7], F).astype(np.float16).astype(F)})
def _(p):
    _, ops, _, _ = ovm()
    k = named(ops.constant(np.array([0.1, 1000.3, -2.7], F)), "bias")
    return [R("z", E("add", "Add", [p["x"], k], auto_broadcast="numpy"))]


@model("eltwise_convert_parameter", "Convert (destination_type f32) on an i32 Parameter, then Multiply (numpy) with an f16 Parameter converted to f32",
       {"x": i23, "h": np.array([0.5, -1.5, 3.0], np.float16)},
       lambda i: {"z": i["x"].astype(F) * i["h"].astype(F)})
def _(p):
    x = E("convert_x", "Convert", [p["x"]], destination_type="f32")
    h = E("convert_h", "Convert", [p["h"]], destination_type="f32")
    return [R("z", E("multiply", "Multiply", [x, h], auto_broadcast="numpy"))]


# ----------------------------------------------------------------------------------------

def build_model(name):
    ov, _, _, _ = ovm()
    desc, inputs, build, _ = MODELS[name]
    params = {k: P(k, v) for k, v in inputs.items()}
    results = build(params)
    return ov.Model(results, list(params.values()), name)


def reference(xml_path, inputs):
    """The saved model, its Parameters replaced by Constants, constant-folded."""
    ov, ops, ovp, _ = ovm()
    core = ov.Core()
    m = core.read_model(str(xml_path))
    for p in m.get_parameters():
        c = ops.constant(inputs[p.get_friendly_name()])
        for t in p.output(0).get_target_inputs():
            t.replace_source_output(c.output(0))
    mgr = ovp.Manager()
    mgr.register_pass(ovp.ConstantFolding())
    mgr.run_passes(m)
    out = {}
    for r in m.get_results():
        src = r.input_value(0).get_node()
        if src.get_type_name() != "Constant":
            out[r.get_friendly_name()] = None
        else:
            out[r.get_friendly_name()] = np.array(src.get_data()).copy()
    return out


def cpu_run(xml_path, inputs):
    ov, _, _, _ = ovm()
    core = ov.Core()
    m = core.read_model(str(xml_path))
    c = core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    req = c.create_infer_request()
    for i, p in enumerate(m.get_parameters()):
        req.set_input_tensor(i, ov.Tensor(np.array(inputs[p.get_friendly_name()], order="C", copy=True)))
    req.infer()
    return {r.get_friendly_name(): req.get_output_tensor(i).data.copy() for i, r in enumerate(m.get_results())}


def same(a, b):
    return a is not None and b is not None and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def good_cases():
    ov, _, _, _ = ovm()
    for name, (desc, inputs, build, np_fn) in MODELS.items():
        d = HERE / name
        if d.exists():
            shutil.rmtree(d)
        (d / "inputs").mkdir(parents=True)
        (d / "expected").mkdir()
        m = build_model(name)
        ov.save_model(m, str(d / "model.xml"), compress_to_fp16=(name == "eltwise_fp16_compressed"))
        for k, v in inputs.items():
            np.save(d / "inputs" / f"{k}.npy", v)
        ref = reference(d / "model.xml", inputs)
        with np.errstate(all="ignore"):
            want = {k: np.asarray(v) for k, v in np_fn(inputs).items()}
        try:
            cpu = cpu_run(d / "model.xml", inputs)
        except Exception as e:  # noqa: BLE001
            cpu = {k: "error: " + [l for l in str(e).splitlines() if l.strip()][-1][:200] for k in ref}
        outs = {}
        for k, r in ref.items():
            w = want[k]
            entry = {}
            if r is None:
                raise SystemExit(f"{name}/{k}: reference left it unfolded")
            if w.dtype != r.dtype:
                w = w.astype(r.dtype)
            np.save(d / "expected" / f"{k}.npy", r)
            entry["expected_from"] = "openvino reference (constant folding)"
            entry["numpy"] = "bit-equal" if same(r, w) else f"differs: numpy {w.ravel().tolist()[:12]}"
            if name == "eltwise_power":
                # Power on floats may differ by 1 ulp (the reference rounds x ** -1 otherwise than numpy)
                entry["ulp"] = 1
                ia, ib = r.view(np.int32).astype(np.int64), w.view(np.int32).astype(np.int64)
                assert np.all(np.abs(ia - ib) <= 1)
                if not same(r, w):
                    entry["numpy"] = f"within 1 ulp (numpy {w.ravel().tolist()})"
            elif not same(r, w):
                print(f"WARNING {name}/{k}: numpy differs from the reference")
            c = cpu.get(k)
            entry["openvino_cpu"] = c if isinstance(c, str) else ("bit-equal" if same(r, c) else f"differs: {c.ravel().tolist()[:12]}")
            outs[k] = entry
        case = {"description": desc,
                "ir": "saved by openvino.save_model, OpenVINO 2026.4.1" + (", compress_to_fp16=True" if name == "eltwise_fp16_compressed" else ""),
                "openvino": "reference (ConstantFolding with the inputs as Constants); CPU plugin ran too",
                "outputs": outs}
        (d / "case.json").write_text(json.dumps(case, indent=2) + "\n")
        print(name, {k: (v["numpy"][:9], v["openvino_cpu"][:30]) for k, v in outs.items()})


# ----------------------------------------------------------------------------------------
# Bad models: text mutations of the good ones.
# ----------------------------------------------------------------------------------------

def once(text, old, new):
    assert text.count(old) == 1, (old, text.count(old))
    return text.replace(old, new)


def dims(ds, indent="\t\t\t\t\t"):
    return "".join(f"\n{indent}<dim>{d}</dim>" for d in ds)


def retype_param_y(t, old, new):
    """Parameter y's shape old -> new (its data and its output port) and the consumer's port."""
    t = once(t, f'<data shape="{",".join(map(str, old))}" element_type="f32" />\n\t\t\t<output>\n\t\t\t\t<port id="0" precision="FP32" names="y">{dims(old)}',
             f'<data shape="{",".join(map(str, new))}" element_type="f32" />\n\t\t\t<output>\n\t\t\t\t<port id="0" precision="FP32" names="y">{dims(new)}')
    t = once(t, f'<port id="1" precision="FP32">{dims(old)}', f'<port id="1" precision="FP32">{dims(new)}')
    return t


BADS = [
    ("eltwise_numpy_incompatible", "eltwise_add_numpy", "Parameter y and the add layer's input 1 given [4] instead of [3]: [2,3] + [4] breaks the numpy rule",
     lambda t: retype_param_y(t, [3], [4]), "add"),
    ("eltwise_none_unequal_shapes", "eltwise_add_numpy", "the add layer's auto_broadcast set to none while its inputs are [2,3] and [3]",
     lambda t: once(t, '<data auto_broadcast="numpy" />', '<data auto_broadcast="none" />'), "add"),
    ("eltwise_unknown_auto_broadcast", "eltwise_add_numpy", "auto_broadcast=\"bidirectional\" (not a value element-wise ops take)",
     lambda t: once(t, '<data auto_broadcast="numpy" />', '<data auto_broadcast="bidirectional" />'), "add"),
    ("eltwise_output_dims_wrong", "eltwise_add_numpy", "the add layer's output port says [2,4]; the computation gives [2,3]",
     lambda t: once(t, f'<port id="2" precision="FP32" names="z">{dims([2, 3])}', f'<port id="2" precision="FP32" names="z">{dims([2, 4])}'), "add"),
    ("eltwise_output_precision_wrong", "eltwise_add_numpy", "the add layer's output port precision I32 for an f32 Add",
     lambda t: once(t, '<port id="2" precision="FP32" names="z">', '<port id="2" precision="I32" names="z">'), "add"),
    ("eltwise_select_cond_not_boolean", "eltwise_select_none", "Parameter c (Select's cond) made f32 instead of boolean",
     lambda t: once(once(t, '<data shape="2,3" element_type="boolean" />', '<data shape="2,3" element_type="f32" />').replace(
         '<port id="0" precision="BOOL" names="c">', '<port id="0" precision="FP32" names="c">', 1), '<port id="0" precision="BOOL">', '<port id="0" precision="FP32">'), "select"),
    ("eltwise_pdpd_axis_minus2", "eltwise_multiply_pdpd_axis1", "PDPD axis -2 (only -1 or a non-negative axis is allowed)",
     lambda t: once(t, 'auto_broadcast.auto_broadcast_axis="1"', 'auto_broadcast.auto_broadcast_axis="-2"'), "multiply"),
    ("eltwise_pdpd_axis_mismatch", "eltwise_multiply_pdpd_axis1", "PDPD axis 0: B [3] meets A's dim 2",
     lambda t: once(t, 'auto_broadcast.auto_broadcast_axis="1"', 'auto_broadcast.auto_broadcast_axis="0"'), "multiply"),
    ("eltwise_compare_output_not_boolean", "eltwise_compare_all", "the eq_op (Equal) layer's output port precision FP32 instead of BOOL",
     lambda t: once(t, '<port id="2" precision="BOOL" names="eq">', '<port id="2" precision="FP32" names="eq">'), "eq_op"),
]


def bad_cases():
    ov, _, _, _ = ovm()
    for name, base, what, mutate, err in BADS:
        d = BAD / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        text = (HERE / base / "model.xml").read_text()
        new = mutate(text)
        assert new != text
        (d / "model.xml").write_text(new)
        shutil.copy(HERE / base / "model.bin", d / "model.bin")
        (d / "error.txt").write_text(err + "\n")
        core = ov.Core()
        try:
            m = core.read_model(str(d / "model.xml"))
            try:
                core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
                verdict = "reads and compiles it (no complaint)"
            except Exception as e:  # noqa: BLE001
                verdict = "reads it, refuses to compile: " + [l for l in str(e).splitlines() if l.strip()][-1][:300]
        except Exception as e:  # noqa: BLE001
            lines = [l.strip() for l in str(e).splitlines() if l.strip()]
            verdict = "refuses to read it: " + " | ".join(lines[-2:])[:400]
        case = {"description": what, "made_from": f"the {base} model saved by OpenVINO, then mutated by generate_eltwise.py",
                "bcast_error_contains": err, "openvino": verdict}
        (d / "case.json").write_text(json.dumps(case, indent=2) + "\n")
        print(name, "->", verdict[:160])


if __name__ == "__main__":
    good_cases()
    bad_cases()
