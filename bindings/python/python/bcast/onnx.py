"""bcast as an ONNX backend: ``onnx.backend.base.Backend`` for graphs of the ops that broadcast.

    import onnx, bcast.onnx
    rep = bcast.onnx.BcastBackend.prepare(onnx.load("model.onnx"))
    outputs = rep.run([x, y])

A graph runs when every node is one of the ONNX ops bcast implements (Add, Sub, Mul, Div, Pow,
Mod, Max, Min, Sum, Mean, the comparisons, And / Or / Xor, BitShift, BitwiseAnd / Or / Xor,
PRelu, Where, Expand) or what such graphs carry (Constant, Identity, Cast and CastLike where
the cast is exact). Anything else is refused with :class:`Unsupported` (a
``NotImplementedError``) naming the op and why. Where ONNX and OpenVINO mean different things
by one name, the ONNX-named function runs (``onnx_div``, ``onnx_mod``, ``onnx_pow``,
``onnx_prelu``; ``max`` and ``min``, not OpenVINO's ``maximum`` and ``minimum``), so every
result is ONNX's own. Needs the ``onnx`` package.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
from onnx import ModelProto, NodeProto, numpy_helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType
from onnx.helper import get_attribute_value, tensor_dtype_to_np_dtype

import bcast

__all__ = ["BcastBackend", "BcastRep", "Unsupported", "prepare", "run_model", "run_node",
           "supports_device", "missing"]

TYPE_GAP = "type not in bcast"


class Unsupported(NotImplementedError):
    """The graph holds an op, or an op on inputs, that bcast does not compute exactly as ONNX
    does. ``op`` is the ONNX op type, ``reason`` says why: it starts with ``TYPE_GAP`` when
    bcast's function does not take the element type."""

    def __init__(self, op: str, reason: str):
        super().__init__(f"bcast.onnx: ONNX {op}: {reason}")
        self.op = op
        self.reason = reason


def _attrs(node: NodeProto) -> Dict[str, Any]:
    return {a.name: get_attribute_value(a) for a in node.attribute}


def _call(op: str, fn: Callable[..., Any], *xs: np.ndarray, **kw: Any) -> np.ndarray:
    """A bcast element-wise function on a node's inputs; a dtype bcast does not take (all
    inputs alike, so the model is valid) is refused rather than raised as a TypeError."""
    try:
        return np.asarray(fn(*xs, **kw))
    except TypeError as e:
        if len({x.dtype for x in xs}) == 1:
            raise Unsupported(op, f"{TYPE_GAP}: bcast.{fn.__name__} does not take {xs[0].dtype} ({e})") from None
        raise


# --- one function per ONNX op: (op type, attributes, inputs) -> outputs -------------------

Run = Callable[[str, Dict[str, Any], List[np.ndarray]], List[np.ndarray]]


def _auto(name: str) -> Run:
    """An OpenVINO-named function under the numpy rule (ONNX's multidirectional rule)."""
    def run(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
        return [_call(op, getattr(bcast, name), *xs, auto_broadcast="numpy")]
    return run


def _own_rule(name: str, **attributes: str) -> Run:
    """A function that broadcasts by ONNX's rule itself; `attributes` maps its keywords to
    the node's attributes."""
    def run(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
        kw = {key: _text(attrs[onnx_name]) for key, onnx_name in attributes.items() if onnx_name in attrs}
        return [_call(op, getattr(bcast, name), *xs, **kw)]
    return run


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


def _equal(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    a, b = xs
    if a.dtype.kind == "U" and b.dtype.kind == "U":
        # Equal-19 takes strings; bcast's equal does not. Two strings are equal exactly when
        # their indices among the distinct values are: bcast compares those.
        _, codes = np.unique(np.concatenate([a.ravel(), b.ravel()]), return_inverse=True)
        a, b = codes[: a.size].reshape(a.shape), codes[a.size:].reshape(b.shape)
    return [_call(op, bcast.equal, a, b, auto_broadcast="numpy")]


def _where(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    cond, x, y = xs
    return [_call(op, bcast.select, cond, x, y, auto_broadcast="numpy")]


def _expand(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    x, shape = xs
    return [np.asarray(bcast.broadcast(x, [int(d) for d in np.ravel(shape)], "bidirectional"))]


def _identity(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    return [np.array(xs[0], copy=True)]


def _constant(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    if "value" in attrs:
        return [numpy_helper.to_array(attrs["value"])]
    scalars = {"value_float": np.float32, "value_int": np.int64, "value_floats": np.float32,
               "value_ints": np.int64}
    for key, dtype in scalars.items():
        if key in attrs:
            return [np.array(attrs[key], dtype=dtype)]
    raise Unsupported(op, f"attribute {sorted(attrs)} (only value, value_float(s), value_int(s))")


def _cast(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    if op == "CastLike":
        x, like = xs
        to = like.dtype
    else:
        (x,) = xs
        to = np.dtype(tensor_dtype_to_np_dtype(int(attrs["to"])))
    if x.dtype.kind in "USO" or to.kind in "USO":
        raise Unsupported(op, f"Cast from {x.dtype} to {to}: strings are not cast here")
    if np.can_cast(x.dtype, to, "safe"):
        return [x.astype(to)]
    with np.errstate(all="ignore"):
        y = x.astype(to)
        back = y.astype(x.dtype)
    exact = (back == x) | (np.isnan(x) & np.isnan(back) if x.dtype.kind == "f" else False)
    if not np.all(exact):
        raise Unsupported(op, f"Cast from {x.dtype} to {to} of values that do not convert exactly")
    return [y]


OPS: Dict[str, Run] = {
    "Add": _auto("add"), "Sub": _auto("subtract"), "Mul": _auto("multiply"),
    "Div": _own_rule("onnx_div"), "Pow": _own_rule("onnx_pow"),
    "Mod": _own_rule("onnx_mod", fmod="fmod"),
    "Max": _own_rule("max"), "Min": _own_rule("min"), "Sum": _own_rule("sum"),
    "Mean": _own_rule("mean"),
    "Equal": _equal, "Less": _auto("less"), "LessOrEqual": _auto("less_equal"),
    "Greater": _auto("greater"), "GreaterOrEqual": _auto("greater_equal"),
    "And": _auto("logical_and"), "Or": _auto("logical_or"), "Xor": _auto("logical_xor"),
    "BitwiseAnd": _auto("bitwise_and"), "BitwiseOr": _auto("bitwise_or"),
    "BitwiseXor": _auto("bitwise_xor"), "BitShift": _own_rule("bit_shift", direction="direction"),
    "PRelu": _own_rule("onnx_prelu"),
    "Where": _where, "Expand": _expand,
    "Constant": _constant, "Identity": _identity, "Cast": _cast, "CastLike": _cast,
}


def missing(model: ModelProto) -> List[str]:
    """What keeps ``model`` from running, one line per node that cannot run whatever its
    inputs (an op bcast does not implement); empty when every node may run."""
    out = []
    for node in model.graph.node:
        if node.domain not in ("", "ai.onnx"):
            out.append(f"{node.op_type}: domain '{node.domain}' is not ONNX's")
        elif node.op_type not in OPS:
            out.append(f"{node.op_type}: not an op that bcast implements")
    return out


def _run_one(node: NodeProto, inputs: List[Optional[np.ndarray]]) -> List[np.ndarray]:
    if node.domain not in ("", "ai.onnx"):
        raise Unsupported(node.op_type, f"domain '{node.domain}' is not ONNX's")
    run = OPS.get(node.op_type)
    if run is None:
        raise Unsupported(node.op_type, "not an op that bcast implements")
    xs = [_strings_as_unicode(np.asarray(x)) for x in inputs if x is not None]
    return run(node.op_type, _attrs(node), xs)


def _strings_as_unicode(x: np.ndarray) -> np.ndarray:
    """ONNX hands string tensors over as object arrays of str; bcast takes numpy's <U."""
    if x.dtype == object and all(isinstance(v, str) for v in x.ravel()):
        return x.astype(str)
    return x


class BcastRep(BackendRep):
    """A prepared graph: ``run(inputs)`` takes the graph's inputs (a list in order, or a dict by
    name) and returns its outputs in order."""

    def __init__(self, model: ModelProto):
        self.graph = model.graph
        self.initializers = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        self.input_names = [i.name for i in model.graph.input if i.name not in self.initializers]
        self.output_names = [o.name for o in model.graph.output]

    def run(self, inputs: Any, **kwargs: Any) -> List[np.ndarray]:
        if isinstance(inputs, dict):
            feeds = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            if len(inputs) != len(self.input_names):
                raise ValueError(f"the graph takes {len(self.input_names)} inputs "
                                 f"({self.input_names}), got {len(inputs)}")
            feeds = dict(zip(self.input_names, inputs))
        values: Dict[str, Any] = {**self.initializers, **{k: np.asarray(v) for k, v in feeds.items()}}
        for node in self.graph.node:
            args = []
            for name in node.input:
                if name == "":
                    args.append(None)
                elif name in values:
                    args.append(values[name])
                else:
                    raise ValueError(f"{node.op_type} node '{node.name}': input '{name}' is not computed")
            for name, value in zip(node.output, _run_one(node, args)):
                values[name] = value
        return [values[name] for name in self.output_names]


class BcastBackend(Backend):
    """ONNX's backend interface over bcast (CPU only)."""

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return Device(device).type == DeviceType.CPU

    @classmethod
    def prepare(cls, model: ModelProto, device: str = "CPU", **kwargs: Any) -> BcastRep:
        if not cls.supports_device(device):
            raise ValueError(f"bcast.onnx runs on CPU, not {device}")
        problems = missing(model)
        if problems:
            first = problems[0].split(": ", 1)
            raise Unsupported(first[0], first[1] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        return BcastRep(model)

    @classmethod
    def run_model(cls, model: ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any) -> List[np.ndarray]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: NodeProto, inputs: Sequence[Any], device: str = "CPU",
                 outputs_info: Any = None, **kwargs: Any) -> List[np.ndarray]:
        if not cls.supports_device(device):
            raise ValueError(f"bcast.onnx runs on CPU, not {device}")
        return _run_one(node, [None if x is None else np.asarray(x) for x in inputs])


prepare = BcastBackend.prepare
run_model = BcastBackend.run_model
run_node = BcastBackend.run_node
supports_device = BcastBackend.supports_device
