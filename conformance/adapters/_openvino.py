"""OpenVINO as a runtime, two ways (openvino_cpu_adapter.py, openvino_reference_adapter.py).

Every case becomes an ov.Model whose inputs are Parameters:
- broadcast: Broadcast-3 (numpy, bidirectional, explicit; pdpd with `mode.mode.axis` through
  NodeFactory("opset3")); `axes` (nGraph v0, gone from OpenVINO) lowered to explicit with
  the complementary axes_mapping, v0's exact-match rule checked here; `multi`: the common
  shape from a chain of bidirectional Broadcasts of ShapeOf, then each input broadcast to it;
- reduce: ReduceSum-1 (keep_dims) over the axes the adapter's rule names, then Reshape;
- eltwise / select: NodeFactory("opset13").create(op, inputs, {"auto_broadcast": ...,
  "auto_broadcast.auto_broadcast_axis": N, "m_pythondiv": ...});
- IR cases: core.read_model(model.xml).
Then "cpu": compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}) and infer;
"reference": every Parameter replaced by a Constant holding its input, then
openvino.passes.ConstantFolding; a Result left unfolded means the reference has no evaluate
for that op/type pair: exit 3 (not supported).
"""

import sys

import numpy as np

from _adapter import Refused, Unsupported, aligned_shape, check_shape, main

import openvino as ov
import openvino.opset13 as ops
import openvino.passes as ovp
from openvino.utils.node_factory import NodeFactory

OPS = {
    "add": "Add", "subtract": "Subtract", "multiply": "Multiply", "divide": "Divide",
    "maximum": "Maximum", "minimum": "Minimum", "squared_difference": "SquaredDifference",
    "power": "Power", "floor_mod": "FloorMod", "mod": "Mod",
    "equal": "Equal", "not_equal": "NotEqual", "less": "Less", "less_equal": "LessEqual",
    "greater": "Greater", "greater_equal": "GreaterEqual",
    "logical_and": "LogicalAnd", "logical_or": "LogicalOr", "logical_xor": "LogicalXor",
}


def ov_type(a):
    if a.dtype == np.bool_:
        return ov.Type.boolean
    if a.dtype.kind == "U":
        return ov.Type.string
    return ov.Type(a.dtype)


def i64(values):
    return ops.constant(np.array(values, dtype=np.int64))


def build(case):
    """(model, {Parameter name: input array}) for an op case."""
    params = [ops.parameter(list(a.shape), ov_type(a), name=f"in{i}")
              for i, a in enumerate(case.inputs)]
    feeds = {f"in{i}": a for i, a in enumerate(case.inputs)}
    outs = [p.output(0) for p in params]
    if case.op == "broadcast":
        mode = case.get("mode")
        if mode == "multi":
            if not outs:
                raise Refused("no inputs")
            shape = ops.shape_of(outs[0])
            for x in outs[1:]:
                shape = ops.shape_of(ops.broadcast(x, shape, broadcast_spec="BIDIRECTIONAL"))
            nodes = [ops.broadcast(x, shape, broadcast_spec="NUMPY") for x in outs]
        else:
            (x,) = outs
            target = i64(case.get("target_shape"))
            if mode == "numpy" or mode == "bidirectional":
                nodes = [ops.broadcast(x, target, broadcast_spec=mode.upper())]
            elif mode in ("explicit", "none"):
                nodes = [ops.broadcast(x, target, i64(case.get("axes_mapping")), "EXPLICIT")]
            elif mode == "axes":
                baxes = case.get("broadcast_axes")
                rank = len(case.get("target_shape"))
                if len(set(baxes)) != len(baxes) or any(a < 0 or a >= rank for a in baxes):
                    raise Refused(f"broadcast_axes {baxes} repeat an axis or are out of range")
                mapping = [i for i in range(rank) if i not in baxes]
                # nGraph v0 stretched nothing; OpenVINO's explicit mode stretches 1s.
                rest = [case.get("target_shape")[i] for i in mapping]
                if rest != list(case.inputs[0].shape):
                    raise Refused(f"target without broadcast_axes is {rest}, "
                                  f"not {list(case.inputs[0].shape)}")
                nodes = [ops.broadcast(x, target, i64(mapping), "EXPLICIT")]
            elif mode == "pdpd":
                nodes = [NodeFactory("opset3").create(
                    "Broadcast", [x, target.output(0)],
                    {"mode": "pdpd", "mode.mode.axis": case.get("axis", -1)})]
            else:
                raise Unsupported(f"mode {mode}")
    elif case.op == "reduce":
        (grad,) = outs
        data_shape = list(case.get("data_shape"))
        check_shape(data_shape, "data_shape")
        aligned, out = aligned_shape(case, data_shape)  # the rule: which axes were repeated
        if list(case.inputs[0].shape) != list(out):
            raise Refused(f"gradient shape {list(case.inputs[0].shape)} is not the output {out}")
        axes = [i for i, (a, o) in enumerate(zip(aligned, out)) if a != o]
        summed = ops.reduce_sum(grad, i64(axes), keep_dims=True) if axes else grad
        nodes = [ops.reshape(summed, i64(data_shape), special_zero=False)]
    elif case.op in ("eltwise", "select"):
        ab = case.get("auto_broadcast", "numpy")
        attrs = {"auto_broadcast": ab}
        if ab == "pdpd":
            attrs["auto_broadcast.auto_broadcast_axis"] = case.get("axis", -1)
        if case.op == "select":
            name = "Select"
        else:
            name = OPS.get(case.get("eltwise"))
            if name is None:
                raise Unsupported(f"eltwise {case.get('eltwise')}")
            if name == "Divide":
                attrs["m_pythondiv"] = case.get("pythondiv", True)
        nodes = [NodeFactory("opset13").create(name, outs, attrs)]
    else:
        raise Unsupported(f"op {case.op}")
    results = [ops.result(n) for n in nodes]
    return ov.Model(results, params, "case"), feeds


def to_tensor(arr, et):
    """An ov.Tensor of element type `et` from an npy array (bf16 arrives as uint16 bits)."""
    if et == ov.Type.bf16 and arr.dtype == np.uint16:
        t = ov.Tensor(ov.Type.bf16, list(arr.shape))
        t.data[...] = arr.view(np.float16)  # OpenVINO shows bf16 bits as float16
        return t
    if arr.dtype.byteorder == ">":  # OpenVINO reads the buffer as native order
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind == "U":
        return ov.Tensor(np.array(arr, order="C", copy=True))
    return ov.Tensor(np.array(arr, order="C", copy=True))


def from_tensor(t):
    if t.element_type == ov.Type.bf16:
        return np.array(t.data).view(np.uint16).copy()
    if t.element_type == ov.Type.string:
        return np.array(t.str_data)
    return np.array(t.data).copy()


def run_cpu(model, feeds):
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    for i, p in enumerate(model.get_parameters()):
        name = p.get_friendly_name()
        if name not in feeds:
            raise Refused(f"no input for Parameter {name}")
        request.set_input_tensor(i, to_tensor(feeds[name], p.get_element_type()))
    request.infer()
    return [from_tensor(request.get_output_tensor(i)) for i in range(len(model.get_results()))]


def run_reference(model, feeds):
    for p in model.get_parameters():
        name = p.get_friendly_name()
        if name not in feeds:
            raise Refused(f"no input for Parameter {name}")
        arr, et = feeds[name], p.get_element_type()
        c = ov.op.Constant(to_tensor(arr, et))  # (ops.constant cannot encode non-ASCII)
        for t in p.output(0).get_target_inputs():
            t.replace_source_output(c.output(0))
    manager = ovp.Manager()
    manager.register_pass(ovp.ConstantFolding())
    manager.run_passes(model)
    outs = []
    for r in model.get_results():
        src = r.input_value(0).get_node()
        if src.get_type_name() != "Constant":
            stuck = [n for n in model.get_ordered_ops()
                     if n.get_type_name() not in ("Constant", "Parameter", "Result")
                     and all(i.get_source_output().get_node().get_type_name() == "Constant"
                             for i in n.inputs())]
            what = stuck[0] if stuck else src
            raise Unsupported(f"the reference has no evaluate for {what.get_type_name()} on "
                              f"{what.input(0).get_element_type().get_type_name() if what.inputs() else '?'} (left unfolded)")
        if src.get_element_type() == ov.Type.string:
            outs.append(np.array(src.get_value_strings(), dtype=str).reshape(src.get_output_shape(0)))
        elif src.get_element_type() == ov.Type.bf16:
            outs.append(np.array(src.get_data()).view(np.uint16).copy())
        else:
            outs.append(np.array(src.get_data()).copy())
    return outs


def adapter(kind):
    execute = run_cpu if kind == "cpu" else run_reference

    def run(case):
        model, feeds = build(case)
        return execute(model, feeds)

    def run_ir(case):
        model = ov.Core().read_model(str(case.dir / "model.xml"))
        names = [r.get_friendly_name() for r in model.get_results()]
        return dict(zip(names, execute(model, case.inputs)))

    main(run, run_ir)


if __name__ == "__main__":
    adapter(sys.argv.pop(1))
