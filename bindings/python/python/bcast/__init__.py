"""bcast: tensor Broadcast for inference runtimes, in every mode, exactly and at memory speed.

numpy arrays in, numpy arrays out. The modes are OpenVINO's and ONNX's:

- ``"numpy"``: right-aligned; each data dim equals the target's or is 1;
- ``"bidirectional"``: both padded; per axis equal or one is 1 (ONNX Expand);
- ``"explicit"`` (``"none"``): ``axes_mapping[i]`` is data axis i's output axis;
- ``"pdpd"``: data laid on the target axes from ``axis`` (-1: right-aligned);
- ``"axes"``: ``broadcast_axes`` are the new output axes (nGraph v0);
- N-ary: ``broadcast_arrays`` / ``broadcast_shapes``.

Functions: ``broadcast``, ``broadcast_arrays``, ``output_shape``, ``broadcast_shapes``,
``reduce_to_input``; element-wise under OpenVINO's auto-broadcast (``"numpy"``,
``"none"``, ``"pdpd"``): ``add``, ``subtract``, ``multiply``, ``divide``, ``maximum``,
``minimum``, ``squared_difference``, ``power``, ``floor_mod``, ``mod``, the comparisons
(``equal`` ... ``greater_equal``), ``logical_and``/``or``/``xor`` and ``select``. Errors: ``BroadcastError`` (a ``ValueError``).
"""

from ._bcast import (
    BroadcastError,
    __version__,
    broadcast,
    broadcast_arrays,
    broadcast_shapes,
    output_shape,
    reduce_to_input,
    add,
    divide,
    equal,
    floor_mod,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    not_equal,
    power,
    select,
    squared_difference,
    subtract,
)

__all__ = [
    "BroadcastError",
    "broadcast",
    "broadcast_arrays",
    "broadcast_shapes",
    "output_shape",
    "reduce_to_input",
    "add",
    "divide",
    "equal",
    "floor_mod",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "not_equal",
    "power",
    "select",
    "squared_difference",
    "subtract",
]
