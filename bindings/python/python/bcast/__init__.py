"""bcast: tensor Broadcast for inference runtimes, in every mode, exactly and at memory speed.

numpy arrays in, numpy arrays out. The modes are OpenVINO's and ONNX's:

- ``"numpy"``: right-aligned; each data dim equals the target's or is 1;
- ``"bidirectional"``: both padded; per axis equal or one is 1 (ONNX Expand);
- ``"explicit"`` (``"none"``): ``axes_mapping[i]`` is data axis i's output axis;
- ``"pdpd"``: data laid on the target axes from ``axis`` (-1: right-aligned);
- ``"axes"``: ``broadcast_axes`` are the new output axes (nGraph v0);
- N-ary: ``broadcast_arrays`` / ``broadcast_shapes``.

Functions: ``broadcast``, ``broadcast_arrays``, ``output_shape``, ``broadcast_shapes``,
``reduce_to_input``; and one function per element-wise op of bcast's op table, OpenVINO's
under its auto-broadcast rules (``"numpy"``, ``"none"``, ``"pdpd"``): ``add``, ``subtract``,
``multiply``, ``divide``, ``maximum``, ``minimum``, ``squared_difference``, ``power``,
``floor_mod``, ``mod``, the comparisons (``equal`` ... ``greater_equal``),
``logical_and``/``or``/``xor``, ``select``, ``bitwise_and``/``or``/``xor``,
``bitwise_left_shift``/``right_shift``, ``prelu``, ``fake_quantize``; ONNX's under the numpy
rule: ``sum``, ``mean``, ``max``, ``min`` (any number of operands), ``bit_shift``,
``onnx_prelu``, ``onnx_mod``, ``onnx_div``, ``onnx_pow``. Expressions of them, run in one
call: ``evaluate("x * s + b", x=..., s=..., b=...)`` and ``Expression`` (parsed once). One op
checked and planned once for its operands' dtypes and shapes, run many times: ``PreparedOp``
(``bcast.onnx``'s backend prepares its graphs' nodes so). Errors: ``BroadcastError`` (a
``ValueError``). Inside this module ``sum``, ``max`` and ``min`` shadow Python's builtins.
"""

from ._bcast import (
    BroadcastError,
    Context,
    Expression,
    PreparedOp,
    __version__,
    _eltwise,
    _ops,
    broadcast,
    broadcast_arrays,
    broadcast_shapes,
    evaluate,
    output_shape,
    reduce_to_input,
)
from ._docs import DOCS as _DOCS, docstring as _docstring

__all__ = [
    "BroadcastError",
    "Context",
    "Expression",
    "PreparedOp",
    "evaluate",
    "broadcast",
    "broadcast_arrays",
    "broadcast_shapes",
    "output_shape",
    "reduce_to_input",
]


def _operand_names(fewest, most):
    """Names for an op the docs do not describe yet."""
    if most is None:
        return ("*xs",)
    if most == 2:
        return ("a", "b")
    return tuple(f"x{i}" for i in range(most))


def _define(name, fewest, most, takes_auto_broadcast, attrs):
    """Defines the function of one op of the table in this module: its signature from the
    table's row (operands, ``out``, the op's attributes, the rule where the op takes one),
    its docstring from ``_docs``. The body hands everything to ``_eltwise``."""
    doc = _DOCS.get(name)
    operands = doc.operands if doc is not None else _operand_names(fewest, most)
    variadic = most is None
    params = list(operands) + ["out=None"]
    if not variadic:
        params.append("*")
    params += [a if default is None else f"{a}={default!r}" for a, default in attrs]
    rule = "None, -1"
    if takes_auto_broadcast:
        params += ["auto_broadcast='numpy'", "axis=-1"]
        rule = "auto_broadcast, axis"
    if params[-1] == "*":
        params.pop()
    if not variadic and "*" not in params:
        params.append("*")
    params.append("context=None")
    rule += ", context"
    passed = operands[0][1:] if variadic else "(" + "".join(o + ", " for o in operands) + ")"
    attributes = "{" + ", ".join(f"{a!r}: {a}" for a, _ in attrs) + "}" if attrs else "None"
    source = (f"def {name}({', '.join(params)}):\n"
              f"    return _eltwise({name!r}, {passed}, out, {attributes}, {rule})\n")
    # Defined in this module's namespace, so that the function's module is bcast (doctest
    # and help() find it here).
    exec(source, globals())
    function = globals()[name]
    if doc is not None:
        function.__doc__ = _docstring(name, takes_auto_broadcast, doc)
    __all__.append(name)


for _row in _ops():
    _define(*_row)
del _row
