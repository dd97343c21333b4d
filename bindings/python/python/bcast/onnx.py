"""bcast as an ONNX backend: ``onnx.backend.base.Backend`` for graphs of the ops that broadcast.

    import onnx, bcast.onnx
    rep = bcast.onnx.BcastBackend.prepare(onnx.load("model.onnx"))
    outputs = rep.run([x, y])

A graph runs when every node is one of the ONNX ops bcast implements (Add, Sub, Mul, Div, Pow,
Mod, Max, Min, Sum, Mean, the comparisons, And / Or / Xor, BitShift, BitwiseAnd / Or / Xor,
PRelu, Where, Expand) or what such graphs carry (Constant, Identity, Cast and CastLike where
the cast is exact). Anything else is refused with :class:`Unsupported` (a ``NotImplementedError``) naming
the op and why; a result is never approximated: where bcast's function for an op means
something else than ONNX on some inputs (OpenVINO's Maximum with NaN, FloorMod on floats), the
ONNX-named function is used when the package has it, and otherwise those inputs are refused.

Each ONNX op maps to the package's function looked up by name when the node runs, so functions
added to ``bcast`` later (``sum``, ``mean``, ``max``, ``min``, ``bitwise_*``, ``bit_shift``,
``onnx_prelu``, ``onnx_mod``, ``onnx_div``, ``onnx_pow``) are used as soon as they exist.
Needs the ``onnx`` package.
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

NOT_YET = "op not in bcast yet"
TYPE_GAP = "type not in bcast"


class Unsupported(NotImplementedError):
    """The graph holds an op, or an op on inputs, that bcast does not compute exactly as ONNX
    does. ``op`` is the ONNX op type, ``reason`` says why: it starts with ``NOT_YET`` when the
    package lacks the function the op needs, with ``TYPE_GAP`` when bcast's function does not
    take the element type."""

    def __init__(self, op: str, reason: str):
        super().__init__(f"bcast.onnx: ONNX {op}: {reason}")
        self.op = op
        self.reason = reason


def _function(op: str, name: str) -> Callable[..., Any]:
    fn = getattr(bcast, name, None)
    if fn is None:
        raise Unsupported(op, f"{NOT_YET} (bcast.{name})")
    return fn


def _has(name: str) -> bool:
    return hasattr(bcast, name)


def _attrs(node: NodeProto) -> Dict[str, Any]:
    return {a.name: get_attribute_value(a) for a in node.attribute}


def _numpy_rule(op: str, fn: Callable[..., Any], *xs: np.ndarray, **kw: Any) -> np.ndarray:
    """A bcast element-wise function under the numpy rule (the ONNX-named functions have no
    other rule, so no auto_broadcast is passed to them); a dtype bcast does not take (all
    inputs alike, so the model is valid) is refused rather than raised as a TypeError."""
    if not fn.__name__.startswith("onnx_"):
        kw["auto_broadcast"] = "numpy"
    try:
        return np.asarray(fn(*xs, **kw))
    except TypeError as e:
        if len({x.dtype for x in xs}) == 1:
            raise Unsupported(op, f"{TYPE_GAP}: bcast.{fn.__name__} does not take {xs[0].dtype} ({e})") from None
        raise


def _is_float(x: np.ndarray) -> bool:
    return x.dtype.kind == "f"


# --- one function per ONNX op: (op type, attributes, inputs) -> outputs -------------------

def _binary(name: str) -> Callable[[str, Dict[str, Any], List[np.ndarray]], List[np.ndarray]]:
    def run(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
        a, b = xs
        return [_numpy_rule(op, _function(op, name), a, b)]
    return run


def _div(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    a, b = xs
    if _has("onnx_div"):
        return [_numpy_rule(op, bcast.onnx_div, a, b)]
    # ONNX truncates integer quotients: OpenVINO's Divide without Python's floor.
    return [_numpy_rule(op, bcast.divide, a, b, pythondiv=False)]


def _mod(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    a, b = xs
    fmod = int(attrs.get("fmod", 0))
    if _has("onnx_mod"):
        return [_numpy_rule(op, bcast.onnx_mod, a, b, fmod=fmod)]
    if fmod == 1:  # C fmod: the dividend's sign, OpenVINO's Mod
        return [_numpy_rule(op, bcast.mod, a, b)]
    if _is_float(a):
        raise Unsupported(op, f"{NOT_YET} (bcast.onnx_mod): fmod=0 on floats is numpy's mod; "
                              "bcast.floor_mod computes x - y*floor(x/y) in double, which differs "
                              "in the sign of zero and the last bit")
    return [_numpy_rule(op, bcast.floor_mod, a, b)]  # Python's %: the divisor's sign


def _pow(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    a, b = xs
    if _has("onnx_pow"):
        return [_numpy_rule(op, bcast.onnx_pow, a, b)]
    if a.dtype != b.dtype:
        raise Unsupported(op, f"{NOT_YET} (bcast.onnx_pow): base {a.dtype} with exponent {b.dtype}")
    return [_numpy_rule(op, bcast.power, a, b)]


def _departs_from_numpy_extremum(a: np.ndarray, b: np.ndarray) -> bool:
    """OpenVINO's Maximum/Minimum return the first operand on ties and NaN; ONNX's (numpy's)
    propagate NaN and may return either zero of a (-0.0, 0.0) pair."""
    if not (_is_float(a) or _is_float(b)):
        return False
    a, b = np.broadcast_arrays(a, b)
    with np.errstate(invalid="ignore"):
        return bool(np.isnan(a).any() or np.isnan(b).any()
                    or ((a == b) & (np.signbit(a) != np.signbit(b))).any())


def _extremum(two: str, onnx_name: str):
    def run(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
        if _has(onnx_name):
            return [np.asarray(getattr(bcast, onnx_name)(*xs))]
        if len(xs) == 1:
            return [np.array(xs[0], copy=True)]
        if len(xs) > 2:
            raise Unsupported(op, f"{NOT_YET} (bcast.{onnx_name}): {len(xs)} inputs")
        a, b = xs
        if _departs_from_numpy_extremum(a, b):
            raise Unsupported(op, f"{NOT_YET} (bcast.{onnx_name}): NaN or a (-0.0, 0.0) pair in "
                                  f"the inputs, where bcast.{two} (OpenVINO) returns the first operand")
        return [_numpy_rule(op, getattr(bcast, two), a, b)]
    return run


def _variadic(name: str):
    def run(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
        return [np.asarray(_function(op, name)(*xs))]
    return run


def _bit_shift(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    a, b = xs
    direction = attrs.get("direction", b"LEFT")
    direction = direction.decode() if isinstance(direction, bytes) else str(direction)
    return [np.asarray(_function(op, "bit_shift")(a, b, direction=direction))]


def _prelu(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    x, slope = xs
    return [np.asarray(_function(op, "onnx_prelu")(x, slope))]


def _where(op: str, attrs: Dict[str, Any], xs: List[np.ndarray]) -> List[np.ndarray]:
    cond, x, y = xs
    return [_numpy_rule(op, bcast.select, cond, x, y)]


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


OPS: Dict[str, Callable[[str, Dict[str, Any], List[np.ndarray]], List[np.ndarray]]] = {
    "Add": _binary("add"), "Sub": _binary("subtract"), "Mul": _binary("multiply"), "Div": _div,
    "Pow": _pow, "Mod": _mod,
    "Max": _extremum("maximum", "max"), "Min": _extremum("minimum", "min"),
    "Sum": _variadic("sum"), "Mean": _variadic("mean"),
    "Equal": _binary("equal"), "Less": _binary("less"), "LessOrEqual": _binary("less_equal"),
    "Greater": _binary("greater"), "GreaterOrEqual": _binary("greater_equal"),
    "And": _binary("logical_and"), "Or": _binary("logical_or"), "Xor": _binary("logical_xor"),
    "BitwiseAnd": _binary("bitwise_and"), "BitwiseOr": _binary("bitwise_or"),
    "BitwiseXor": _binary("bitwise_xor"), "BitShift": _bit_shift, "PRelu": _prelu,
    "Where": _where, "Expand": _expand,
    "Constant": _constant, "Identity": _identity, "Cast": _cast, "CastLike": _cast,
}

# The package function each op needs before it can run at all (None: always there).
_NEEDS = {"Sum": "sum", "Mean": "mean", "BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or",
          "BitwiseXor": "bitwise_xor", "BitShift": "bit_shift", "PRelu": "onnx_prelu"}


def missing(model: ModelProto) -> List[str]:
    """What keeps ``model`` from running, one line per node that cannot run whatever its
    inputs (an op bcast does not implement, or not yet); empty when every node may run."""
    out = []
    for node in model.graph.node:
        if node.domain not in ("", "ai.onnx"):
            out.append(f"{node.op_type}: domain '{node.domain}' is not ONNX's")
        elif node.op_type not in OPS:
            out.append(f"{node.op_type}: not an op that bcast implements")
        elif node.op_type in _NEEDS and not _has(_NEEDS[node.op_type]):
            out.append(f"{node.op_type}: {NOT_YET} (bcast.{_NEEDS[node.op_type]})")
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
