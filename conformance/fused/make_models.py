#!/usr/bin/env python3
"""Chains of element-wise layers for `bcast ir`'s fusion: conformance/fused/<name>/.

    python3.11 conformance/fused/make_models.py

Requirements: OpenVINO 2026.4.1 and numpy 2.4.6 (conformance/ir/requirements.txt).

Each case is an IR model case, as in conformance/ir/ (so `bcast conformance` and
crates/bcast-cli/tests/fused_ir.rs run it):
  model.xml, model.bin   built with openvino.opset13 and saved by openvino.save_model
                         (compress_to_fp16=False)
  inputs/<Parameter>.npy the inputs (seeded random values)
  expected/<Result>.npy  OpenVINO's reference: the saved model is read back, every Parameter
                         is replaced by a Constant holding its input, and
                         openvino.passes.ConstantFolding computes every Result
  case.json              what the model is, which layers bcast must fuse into which chain
                         ("chains": the layer names of each, in run order), and how numpy
                         and the CPU plugin (INFERENCE_PRECISION_HINT as the model's type)
                         compare with the reference

The models (Consts hold per-channel values, so every chain broadcasts):
  batchnorm_relu6_f32   x[1,C,H,W] * scale[1,C,1,1] + shift[1,C,1,1], then Maximum 0 and
                        Minimum 6: one chain of 4 layers
  batchnorm_relu6_f16   the same in f16 (each op rounds to f16, as OpenVINO's reference does)
  batchnorm_relu_i32    x * scale + shift, Maximum 0, in i32 (wrapping products)
  leaky_select_f32      select(x > 0, x * alpha[C,1,1], x * beta[C,1,1]), pdpd axis 1 on
                        the Multiplys: a tree of 4 layers (x read by three of them)
  two_results_f32       y = x * scale + shift is a Result, and z = maximum(y, 0) another: y's
                        layers form one chain, z's Maximum runs alone (its input is a graph
                        output)
"""

import json
import shutil
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
C, H, W = 4, 5, 6


def ovm():
    import openvino as ov
    import openvino.opset13 as ops
    import openvino.passes as ovp
    return ov, ops, ovp


def named(node, name):
    node.set_friendly_name(name)
    return node


def param(name, arr):
    ov, ops, _ = ovm()
    return named(ops.parameter(list(arr.shape), ov.Type(arr.dtype), name=name), name)


def const(name, arr):
    _, ops, _ = ovm()
    return named(ops.constant(arr), name)


rng = np.random.default_rng(29)


def floats(shape, dtype, scale=3.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def batchnorm_relu6(dtype):
    x = floats((1, C, H, W), dtype)
    scale = floats((1, C, 1, 1), dtype, 1.5)
    shift = floats((1, C, 1, 1), dtype, 2.0)

    def build(p):
        _, ops, _ = ovm()
        m = named(ops.multiply(p["x"], const("scale", scale)), "scale_mul")
        a = named(ops.add(m, const("shift", shift)), "shift_add")
        r = named(ops.maximum(a, const("zero", np.array(0, dtype))), "relu")
        s = named(ops.minimum(r, const("six", np.array(6, dtype))), "relu6")
        return [named(ops.result(s), "y")]

    def reference(i):
        t = (i["x"] * scale).astype(dtype)
        t = (t + shift).astype(dtype)
        t = np.where(t < 0, dtype(0), t).astype(dtype)
        return {"y": np.where(t > 6, dtype(6), t).astype(dtype)}

    return {"x": x}, build, reference, [["scale_mul", "shift_add", "relu", "relu6"]]


def batchnorm_relu_i32():
    x = rng.integers(-50_000, 50_000, (1, C, H, W), dtype=np.int32)
    # Large scales: some products wrap, as i32 products do in OpenVINO's reference.
    scale = rng.integers(-70_000, 70_000, (1, C, 1, 1), dtype=np.int32)
    shift = rng.integers(-1000, 1000, (1, C, 1, 1), dtype=np.int32)

    def build(p):
        _, ops, _ = ovm()
        m = named(ops.multiply(p["x"], const("scale", scale)), "scale_mul")
        a = named(ops.add(m, const("shift", shift)), "shift_add")
        r = named(ops.maximum(a, const("zero", np.array(0, np.int32))), "relu")
        return [named(ops.result(r), "y")]

    def reference(i):
        with np.errstate(over="ignore"):
            t = i["x"] * scale + shift
        return {"y": np.maximum(t, 0).astype(np.int32)}

    return {"x": x}, build, reference, [["scale_mul", "shift_add", "relu"]]


def leaky_select_f32():
    x = floats((1, C, H, W), np.float32)
    alpha = floats((C, 1, 1), np.float32, 1.0)
    beta = (floats((C, 1, 1), np.float32, 1.0) * 0.1).astype(np.float32)

    def build(p):
        _, ops, _ = ovm()
        from openvino.utils.node_factory import NodeFactory
        f = NodeFactory("opset13")
        pdpd = {"auto_broadcast": "pdpd", "auto_broadcast.auto_broadcast_axis": 1}
        pos = named(ops.greater(p["x"], const("zero", np.array(0, np.float32))), "positive")
        a = named(f.create("Multiply", [p["x"].output(0), const("alpha", alpha).output(0)], pdpd), "alpha_mul")
        b = named(f.create("Multiply", [p["x"].output(0), const("beta", beta).output(0)], pdpd), "beta_mul")
        s = named(ops.select(pos, a, b), "leaky")
        return [named(ops.result(s), "y")]

    def reference(i):
        v = i["x"]
        return {"y": np.where(v > 0, v * alpha[None], v * beta[None]).astype(np.float32)}

    return {"x": x}, build, reference, [["positive", "alpha_mul", "beta_mul", "leaky"]]


def two_results_f32():
    x = floats((1, C, H, W), np.float32)
    scale = floats((1, C, 1, 1), np.float32, 1.5)
    shift = floats((1, C, 1, 1), np.float32, 2.0)

    def build(p):
        _, ops, _ = ovm()
        m = named(ops.multiply(p["x"], const("scale", scale)), "scale_mul")
        a = named(ops.add(m, const("shift", shift)), "shift_add")
        r = named(ops.maximum(a, const("zero", np.array(0, np.float32))), "relu")
        return [named(ops.result(a), "y"), named(ops.result(r), "z")]

    def reference(i):
        y = (i["x"] * scale + shift).astype(np.float32)
        return {"y": y, "z": np.where(y < 0, np.float32(0), y).astype(np.float32)}

    return {"x": x}, build, reference, [["scale_mul", "shift_add"]]


MODELS = {
    "batchnorm_relu6_f32": ("Multiply, Add (per-channel Consts [1,C,1,1]), Maximum 0, Minimum 6 on f32 x[1,C,H,W]", lambda: batchnorm_relu6(np.float32)),
    "batchnorm_relu6_f16": ("the f32 model's chain in f16", lambda: batchnorm_relu6(np.float16)),
    "batchnorm_relu_i32": ("Multiply, Add (per-channel Consts), Maximum 0 on i32; some products wrap", batchnorm_relu_i32),
    "leaky_select_f32": ("Select(Greater(x, 0), Multiply(x, alpha), Multiply(x, beta)), Multiplys pdpd axis 1 with [C,1,1] Consts", leaky_select_f32),
    "two_results_f32": ("y = x * scale + shift is a Result, z = Maximum(y, 0) another", two_results_f32),
}


def reference(xml_path, inputs):
    """The saved model, its Parameters replaced by Constants, constant-folded."""
    ov, ops, ovp = ovm()
    m = ov.Core().read_model(str(xml_path))
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
            raise SystemExit(f"{xml_path}: {r.get_friendly_name()} was left unfolded")
        out[r.get_friendly_name()] = np.array(src.get_data()).copy()
    return out


def reference_op_by_op(xml_path, inputs):
    """Each layer of the saved model folded alone by ConstantFolding, from Constants holding
    the inputs and the outputs the layers before it gave: every layer's output is rounded to
    its element type before the next layer reads it, as the layers' semantics say."""
    ov, ops, ovp = ovm()
    from openvino.utils.node_factory import NodeFactory
    factory = NodeFactory("opset13")
    m = ov.Core().read_model(str(xml_path))
    values = {}
    out = {}
    for node in m.get_ordered_ops():
        kind = node.get_type_name()
        name = node.get_friendly_name()
        if kind == "Parameter":
            values[name] = inputs[name]
        elif kind == "Constant":
            values[name] = np.array(node.get_data()).copy()
        elif kind == "Result":
            out[name] = values[node.input_value(0).get_node().get_friendly_name()]
        else:
            args = [ops.constant(values[i.get_node().get_friendly_name()]).output(0) for i in node.input_values()]
            alone = factory.create(kind, args, node.get_attributes())
            folded = ov.Model([ops.result(alone)], [], "layer")
            mgr = ovp.Manager()
            mgr.register_pass(ovp.ConstantFolding())
            mgr.run_passes(folded)
            src = folded.get_results()[0].input_value(0).get_node()
            assert src.get_type_name() == "Constant", (xml_path, name)
            values[name] = np.array(src.get_data()).copy()
    return out


def cpu_run(xml_path, inputs, dtype):
    ov, _, _ = ovm()
    core = ov.Core()
    m = core.read_model(str(xml_path))
    hint = "f16" if dtype == np.float16 else "f32"
    c = core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": hint})
    req = c.create_infer_request()
    for k, p in enumerate(m.get_parameters()):
        req.set_input_tensor(k, ov.Tensor(np.ascontiguousarray(inputs[p.get_friendly_name()])))
    req.infer()
    return {r.get_friendly_name(): req.get_output_tensor(k).data.copy() for k, r in enumerate(m.get_results())}


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def main():
    ov, _, _ = ovm()
    for name, (description, make) in MODELS.items():
        inputs, build, numpy_ref, chains = make()
        d = HERE / name
        if d.exists():
            shutil.rmtree(d)
        (d / "inputs").mkdir(parents=True)
        (d / "expected").mkdir()
        params = {k: param(k, v) for k, v in inputs.items()}
        model = ov.Model(build(params), list(params.values()), name)
        ov.save_model(model, str(d / "model.xml"), compress_to_fp16=False)
        for k, v in inputs.items():
            np.save(d / "inputs" / f"{k}.npy", v)
        ref = reference_op_by_op(d / "model.xml", inputs)
        whole = reference(d / "model.xml", inputs)
        want = numpy_ref(inputs)
        dtype = next(iter(inputs.values())).dtype.type
        try:
            cpu = cpu_run(d / "model.xml", inputs, dtype)
        except Exception as e:  # noqa: BLE001
            cpu = {k: "error: " + [l for l in str(e).splitlines() if l.strip()][-1][:200] for k in ref}
        outputs = {}
        for k, r in ref.items():
            np.save(d / "expected" / f"{k}.npy", r)
            c = cpu[k]
            outputs[k] = {
                "expected_from": "openvino reference, layer by layer (each layer constant-folded alone)",
                "openvino_whole_model_folding": "bit-equal" if same(r, whole[k]) else
                    f"differs in {int(np.sum(r != whole[k]))} of {r.size} elements: folding the whole chain at once, OpenVINO keeps f16 intermediates in f32 (rounds once, at the end)",
                "numpy": "bit-equal" if same(r, want[k]) else "differs",
                "openvino_cpu": c if isinstance(c, str) else ("bit-equal" if same(r, c) else
                                 f"differs in {int(np.sum(r != c))} of {r.size} elements (max |diff| {float(np.max(np.abs(r.astype(np.float64) - c.astype(np.float64))))})"),
            }
            if not same(r, want[k]):
                print(f"WARNING {name}/{k}: numpy differs from the reference")
        case = {
            "description": description,
            "ir": "built with openvino.opset13, saved by openvino.save_model, OpenVINO " + ov.__version__.split("-")[0],
            "openvino": "reference, layer by layer (ConstantFolding of each layer alone, its inputs as Constants); the whole model folded at once and the CPU plugin ran too",
            "chains": chains,
            "outputs": outputs,
        }
        (d / "case.json").write_text(json.dumps(case, indent=2) + "\n")
        print(name, {k: (v["numpy"], v["openvino_cpu"][:60]) for k, v in outputs.items()})


if __name__ == "__main__":
    main()
