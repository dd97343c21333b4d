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

Prepared nodes: ``prepare`` builds a :class:`bcast.PreparedOp` for every node that is one op
of bcast's table (every op above but Expand and what graphs carry) whose inputs' dtypes and
static shapes the graph declares (graph inputs, initializers, ``value_info``, graph outputs)
or that follow from earlier nodes (a prepared node's ``output_shape``; Constant, Identity,
Cast, CastLike). ``run`` runs a node on its prepared op when its inputs have the prepared
dtypes and shapes; inputs of other ones (a dynamic dimension, say) get a prepared op built on
that run and kept for the next (the last 8 per node, keyed by the inputs' dtypes and shapes).
Results are those of the unprepared call, bit for bit, and so are the errors: where preparing
refuses (string inputs, a dtype or shapes the op does not take) the node runs as before. Pass
``context=`` (a :class:`bcast.Context`) or ``threads=`` (a new one) to ``prepare`` to choose
the threads every node of the graph runs on (default: bcast's own team).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

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


# --- one function per ONNX op: (op type, attributes, inputs, context) -> outputs ----------

Run = Callable[..., List[np.ndarray]]


def _context(context: Optional[bcast.Context]) -> Dict[str, Any]:
    """The keyword that runs a bcast function in `context` (none: bcast's default)."""
    return {} if context is None else {"context": context}


class _Eltwise:
    """An ONNX op that is one op of bcast's table: ``function`` names it in bcast (and in
    :class:`bcast.PreparedOp`), ``rule`` is ``"numpy"`` for an OpenVINO-named function run
    under the numpy rule (ONNX's multidirectional one) and None for a function that
    broadcasts by ONNX's rule itself, ``attributes`` maps the function's keywords to the
    node's attributes. Called as every entry of ``OPS``; ``prepare`` makes the same call a
    prepared op."""

    def __init__(self, function: str, rule: Optional[str] = None, **attributes: str):
        self.function = function
        self.rule = rule
        self.attributes = attributes

    def keywords(self, attrs: Dict[str, Any]) -> Dict[str, Any]:
        """The function's keywords for a node of these attributes."""
        kw = {key: _text(attrs[name]) for key, name in self.attributes.items() if name in attrs}
        if self.rule is not None:
            kw["auto_broadcast"] = self.rule
        return kw

    def __call__(self, op: str, attrs: Dict[str, Any], xs: List[np.ndarray],
                 context: Optional[bcast.Context] = None) -> List[np.ndarray]:
        return [_call(op, getattr(bcast, self.function), *xs, **self.keywords(attrs), **_context(context))]

    def prepare(self, attrs: Dict[str, Any], dtypes: Sequence[Any],
                shapes: Sequence[Sequence[int]]) -> Optional[bcast.PreparedOp]:
        """The node's call as a prepared op for inputs of these dtypes and shapes, or None
        where it runs unprepared: strings (Equal's codes, ``<U`` widths and object arrays are
        handled by the call), or inputs the function refuses (the call then raises its own
        error, as before)."""
        if any(np.dtype(d).kind in "USO" for d in dtypes):
            return None
        try:
            return bcast.PreparedOp(self.function, dtypes, shapes, **self.keywords(attrs))
        except (TypeError, ValueError):  # ValueError: bcast.BroadcastError among them
            return None


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


class _Equal(_Eltwise):
    """Equal, which also takes strings (always run unprepared: see ``prepare``)."""

    def __call__(self, op: str, attrs: Dict[str, Any], xs: List[np.ndarray],
                 context: Optional[bcast.Context] = None) -> List[np.ndarray]:
        a, b = xs
        if a.dtype.kind == "U" and b.dtype.kind == "U":
            # Equal-19 takes strings; bcast's equal does not. Two strings are equal exactly when
            # their indices among the distinct values are: bcast compares those.
            _, codes = np.unique(np.concatenate([a.ravel(), b.ravel()]), return_inverse=True)
            a, b = codes[: a.size].reshape(a.shape), codes[a.size:].reshape(b.shape)
        return super().__call__(op, attrs, [a, b], context)


class _Where(_Eltwise):
    """Where: bcast's select under the numpy rule, on exactly three inputs."""

    def __call__(self, op: str, attrs: Dict[str, Any], xs: List[np.ndarray],
                 context: Optional[bcast.Context] = None) -> List[np.ndarray]:
        cond, x, y = xs
        return super().__call__(op, attrs, [cond, x, y], context)


def _expand(op: str, attrs: Dict[str, Any], xs: List[np.ndarray],
            context: Optional[bcast.Context] = None) -> List[np.ndarray]:
    x, shape = xs
    return [np.asarray(bcast.broadcast(x, [int(d) for d in np.ravel(shape)], "bidirectional",
                                       **_context(context)))]


def _identity(op: str, attrs: Dict[str, Any], xs: List[np.ndarray],
              context: Optional[bcast.Context] = None) -> List[np.ndarray]:
    return [np.array(xs[0], copy=True)]


def _constant(op: str, attrs: Dict[str, Any], xs: List[np.ndarray],
              context: Optional[bcast.Context] = None) -> List[np.ndarray]:
    if "value" in attrs:
        return [numpy_helper.to_array(attrs["value"])]
    scalars = {"value_float": np.float32, "value_int": np.int64, "value_floats": np.float32,
               "value_ints": np.int64}
    for key, dtype in scalars.items():
        if key in attrs:
            return [np.array(attrs[key], dtype=dtype)]
    raise Unsupported(op, f"attribute {sorted(attrs)} (only value, value_float(s), value_int(s))")


def _cast(op: str, attrs: Dict[str, Any], xs: List[np.ndarray],
          context: Optional[bcast.Context] = None) -> List[np.ndarray]:
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


def _auto(name: str) -> _Eltwise:
    """An OpenVINO-named function under the numpy rule (ONNX's multidirectional rule)."""
    return _Eltwise(name, "numpy")


def _own_rule(name: str, **attributes: str) -> _Eltwise:
    """A function that broadcasts by ONNX's rule itself; `attributes` maps its keywords to
    the node's attributes."""
    return _Eltwise(name, None, **attributes)


# Every ONNX op that is one op of bcast's table is an _Eltwise (prepared by the backend);
# Expand (bcast.broadcast, its shape an input's values) and what graphs carry are not.
OPS: Dict[str, Run] = {
    "Add": _auto("add"), "Sub": _auto("subtract"), "Mul": _auto("multiply"),
    "Div": _own_rule("onnx_div"), "Pow": _own_rule("onnx_pow"),
    "Mod": _own_rule("onnx_mod", fmod="fmod"),
    "Max": _own_rule("max"), "Min": _own_rule("min"), "Sum": _own_rule("sum"),
    "Mean": _own_rule("mean"),
    "Equal": _Equal("equal", "numpy"), "Less": _auto("less"), "LessOrEqual": _auto("less_equal"),
    "Greater": _auto("greater"), "GreaterOrEqual": _auto("greater_equal"),
    "And": _auto("logical_and"), "Or": _auto("logical_or"), "Xor": _auto("logical_xor"),
    "BitwiseAnd": _auto("bitwise_and"), "BitwiseOr": _auto("bitwise_or"),
    "BitwiseXor": _auto("bitwise_xor"), "BitShift": _own_rule("bit_shift", direction="direction"),
    "PRelu": _own_rule("onnx_prelu"),
    "Where": _Where("select", "numpy"), "Expand": _expand,
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


def _op_of(node: NodeProto) -> Run:
    if node.domain not in ("", "ai.onnx"):
        raise Unsupported(node.op_type, f"domain '{node.domain}' is not ONNX's")
    run = OPS.get(node.op_type)
    if run is None:
        raise Unsupported(node.op_type, "not an op that bcast implements")
    return run


def _operands(inputs: Sequence[Optional[np.ndarray]]) -> List[np.ndarray]:
    """A node's inputs as its function takes them: the absent optional ones dropped."""
    return [_strings_as_unicode(np.asarray(x)) for x in inputs if x is not None]


def _run_one(node: NodeProto, inputs: List[Optional[np.ndarray]],
             context: Optional[bcast.Context] = None) -> List[np.ndarray]:
    run = _op_of(node)
    return run(node.op_type, _attrs(node), _operands(inputs), context)


def _strings_as_unicode(x: np.ndarray) -> np.ndarray:
    """ONNX hands string tensors over as object arrays of str; bcast takes numpy's <U."""
    if x.dtype == object and all(isinstance(v, str) for v in x.ravel()):
        return x.astype(str)
    return x


# A node's prepared ops, kept per (dtype, shape) of its inputs: the last this many.
CACHED_SHAPES = 8

_Key = Tuple[Tuple[np.dtype, Tuple[int, ...]], ...]


def _declared(value_info: Any) -> Optional[Tuple[np.dtype, Tuple[int, ...]]]:
    """The dtype and static shape a graph declares for a value (an input, output or
    ``value_info`` entry), or None where it declares no tensor type or a dim is not a number."""
    t = value_info.type
    if t.WhichOneof("value") != "tensor_type" or not t.tensor_type.HasField("shape"):
        return None
    dims = t.tensor_type.shape.dim
    if any(d.WhichOneof("value") != "dim_value" for d in dims):
        return None
    try:
        dtype = np.dtype(tensor_dtype_to_np_dtype(t.tensor_type.elem_type))
    except Exception:  # noqa: BLE001 - an undefined or unknown element type: not declared
        return None
    return dtype, tuple(int(d.dim_value) for d in dims)


class BcastRep(BackendRep):
    """A prepared graph: ``run(inputs)`` takes the graph's inputs (a list in order, or a dict by
    name) and returns its outputs in order.

    ``context``: the :class:`bcast.Context` every node runs in (None: bcast's default).
    ``prepared_at_load``: how many nodes ``prepare`` gave a prepared op (those whose inputs'
    dtypes and shapes the graph declares or implies); ``prepared_count``: how many prepared
    ops the nodes hold now (those built by runs on inputs of other shapes included)."""

    def __init__(self, model: ModelProto, context: Optional[bcast.Context] = None):
        self.graph = model.graph
        self.context = context
        self.initializers = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        self.input_names = [i.name for i in model.graph.input if i.name not in self.initializers]
        self.output_names = [o.name for o in model.graph.output]
        # Each node's function (None for an op that is not bcast's: refused when it runs).
        self._nodes = [(node, OPS.get(node.op_type) if node.domain in ("", "ai.onnx") else None,
                        _attrs(node)) for node in model.graph.node]
        # Per node, None (not an op of bcast's table) or its prepared ops by input key; a
        # key whose inputs the op refuses maps to None (run unprepared, which raises).
        self._prepared: List[Optional[Dict[_Key, Optional[bcast.PreparedOp]]]] = [
            {} if isinstance(run, _Eltwise) else None for _, run, _ in self._nodes]
        self.prepared_at_load = self._prepare_static()

    @property
    def prepared_count(self) -> int:
        return sum(p is not None for cache in self._prepared if cache for p in cache.values())

    def _prepare_static(self) -> int:
        """Prepares every node of the table whose inputs' dtypes and shapes are known before
        a run; returns how many."""
        known: Dict[str, Tuple[np.dtype, Tuple[int, ...]]] = {}
        for v in [*self.graph.input, *self.graph.value_info, *self.graph.output]:
            declared = _declared(v)
            if declared is not None:
                known[v.name] = declared
        for name, value in self.initializers.items():
            known[name] = (value.dtype, value.shape)
        count = 0
        for (node, run, attrs), cache in zip(self._nodes, self._prepared):
            names = [n for n in node.input if n != ""]
            if not all(n in known for n in names):
                continue
            ins = [known[n] for n in names]
            out: Optional[Tuple[np.dtype, Tuple[int, ...]]] = None
            if cache is not None:
                p = run.prepare(attrs, [d for d, _ in ins], [s for _, s in ins])
                if p is not None:
                    cache[tuple(ins)] = p
                    count += 1
                    out = (p.output_dtype, p.output_shape)
            elif node.op_type == "Identity" and ins:
                out = ins[0]
            elif node.op_type == "Constant":
                try:
                    value = _constant(node.op_type, attrs, [])[0]
                    out = (value.dtype, value.shape)
                except Exception:  # noqa: BLE001 - refused at run, as before
                    pass
            elif node.op_type == "Cast" and "to" in attrs and ins:
                try:
                    out = (np.dtype(tensor_dtype_to_np_dtype(int(attrs["to"]))), ins[0][1])
                except Exception:  # noqa: BLE001 - refused at run, as before
                    pass
            elif node.op_type == "CastLike" and len(ins) == 2:
                out = (ins[1][0], ins[0][1])
            if out is not None and node.output:
                known[node.output[0]] = out
        return count

    def _run_node(self, i: int, args: List[Optional[np.ndarray]]) -> List[np.ndarray]:
        node, run, attrs = self._nodes[i]
        if run is None:
            run = _op_of(node)  # raises Unsupported
        xs = _operands(args)
        cache = self._prepared[i]
        if cache is not None:
            key = tuple((x.dtype, x.shape) for x in xs)
            if key in cache:
                p = cache[key]
            else:
                # A shape (or dtype) not prepared yet: prepared now, as a runtime reshapes.
                p = run.prepare(attrs, [x.dtype for x in xs], [x.shape for x in xs])
                if len(cache) >= CACHED_SHAPES:
                    del cache[next(iter(cache))]
                cache[key] = p
            if p is not None:
                return [np.asarray(p(*xs, context=self.context))]
        return run(node.op_type, attrs, xs, self.context)

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
        for i, (node, _, _) in enumerate(self._nodes):
            args = []
            for name in node.input:
                if name == "":
                    args.append(None)
                elif name in values:
                    args.append(values[name])
                else:
                    raise ValueError(f"{node.op_type} node '{node.name}': input '{name}' is not computed")
            for name, value in zip(node.output, self._run_node(i, args)):
                values[name] = value
        return [values[name] for name in self.output_names]


class BcastBackend(Backend):
    """ONNX's backend interface over bcast (CPU only)."""

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return Device(device).type == DeviceType.CPU

    @classmethod
    def prepare(cls, model: ModelProto, device: str = "CPU", *, context: Optional[bcast.Context] = None,
                threads: Optional[int] = None, **kwargs: Any) -> BcastRep:
        """The graph checked and its nodes prepared (see the module's doc). ``context``: the
        :class:`bcast.Context` its nodes run in; ``threads``: a new ``bcast.Context(threads)``
        for this graph (not both; neither: bcast's default team)."""
        if not cls.supports_device(device):
            raise ValueError(f"bcast.onnx runs on CPU, not {device}")
        if context is not None and threads is not None:
            raise TypeError("prepare takes context= or threads=, not both")
        if threads is not None:
            context = bcast.Context(threads=threads)
        problems = missing(model)
        if problems:
            first = problems[0].split(": ", 1)
            raise Unsupported(first[0], first[1] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        return BcastRep(model, context)

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
