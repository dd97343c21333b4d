from typing import (
    Any,
    Literal,
    Mapping,
    overload,
    Optional,
    Sequence,
    SupportsIndex,
    Tuple,
    TypeVar,
    Union,
)

import numpy as np
import numpy.typing as npt

__version__: str

_Shape = Union[SupportsIndex, Sequence[SupportsIndex]]
_Mode = Literal["numpy", "bidirectional", "explicit", "none", "pdpd", "axes"]
_ArrayT = TypeVar("_ArrayT", bound=np.ndarray)
_AutoBroadcast = Literal["numpy", "none", "pdpd"]

class BroadcastError(ValueError): ...

class Context:
    def __init__(self, threads: int = 0, spin_us: int = -1) -> None: ...
    @property
    def threads(self) -> int: ...

@overload
def broadcast(
    x: npt.ArrayLike,
    shape: _Shape,
    mode: Union[_Mode, str] = "numpy",
    *,
    axes_mapping: Optional[Sequence[SupportsIndex]] = None,
    axis: int = -1,
    broadcast_axes: Optional[Sequence[SupportsIndex]] = None,
    out: None = None,
    context: Optional[Context] = None,
) -> np.ndarray: ...
@overload
def broadcast(
    x: npt.ArrayLike,
    shape: _Shape,
    mode: Union[_Mode, str] = "numpy",
    *,
    axes_mapping: Optional[Sequence[SupportsIndex]] = None,
    axis: int = -1,
    broadcast_axes: Optional[Sequence[SupportsIndex]] = None,
    out: _ArrayT,
    context: Optional[Context] = None,
) -> _ArrayT: ...
def broadcast_arrays(*xs: npt.ArrayLike) -> Tuple[np.ndarray, ...]: ...
def output_shape(
    data_shape: _Shape,
    target_shape: _Shape,
    mode: Union[_Mode, str] = "numpy",
    *,
    axes_mapping: Optional[Sequence[SupportsIndex]] = None,
    axis: int = -1,
    broadcast_axes: Optional[Sequence[SupportsIndex]] = None,
) -> Tuple[int, ...]: ...
def broadcast_shapes(*shapes: _Shape) -> Tuple[int, ...]: ...
def reduce_to_input(
    grad: npt.ArrayLike,
    data_shape: _Shape,
    mode: Union[_Mode, str] = "numpy",
    *,
    target_shape: Optional[_Shape] = None,
    axes_mapping: Optional[Sequence[SupportsIndex]] = None,
    axis: int = -1,
    broadcast_axes: Optional[Sequence[SupportsIndex]] = None,
) -> np.ndarray: ...

# Element-wise ops under OpenVINO's auto-broadcast rules. `out` is numpy's third positional
# argument; the rule is keyword-only. Python int/float/bool operands take the other operand's
# dtype as in numpy 2; two scalars (or 0-d operands) give a numpy scalar.
_Operand = Union[npt.ArrayLike, int, float, bool]

@overload
def add(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def add(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def subtract(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def subtract(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def multiply(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def multiply(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def maximum(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def maximum(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def minimum(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def minimum(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def squared_difference(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def squared_difference(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def power(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def power(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def floor_mod(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def floor_mod(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def mod(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def mod(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def equal(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def equal(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def not_equal(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def not_equal(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def less(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def less(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def less_equal(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def less_equal(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def greater(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def greater(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def greater_equal(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def greater_equal(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def logical_and(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def logical_and(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def logical_or(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def logical_or(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def logical_xor(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def logical_xor(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def divide(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    pythondiv: bool = True,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def divide(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    pythondiv: bool = True,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def select(
    cond: Union[npt.ArrayLike, bool],
    then: _Operand,
    else_: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> np.ndarray: ...
@overload
def select(
    cond: Union[npt.ArrayLike, bool],
    then: _Operand,
    else_: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...

# ONNX's variadic ops: any number of operands (one or more), broadcast together under the
# numpy rule; `out` is keyword-only. Inside the module, `sum`, `max` and `min` shadow the builtins.
@overload
def sum(*xs: _Operand, out: None = None, context: Optional[Context] = None) -> Any: ...
@overload
def sum(*xs: _Operand, out: _ArrayT, context: Optional[Context] = None) -> _ArrayT: ...
@overload
def mean(*xs: _Operand, out: None = None, context: Optional[Context] = None) -> Any: ...
@overload
def mean(*xs: _Operand, out: _ArrayT, context: Optional[Context] = None) -> _ArrayT: ...
@overload
def max(*xs: _Operand, out: None = None, context: Optional[Context] = None) -> Any: ...
@overload
def max(*xs: _Operand, out: _ArrayT, context: Optional[Context] = None) -> _ArrayT: ...
@overload
def min(*xs: _Operand, out: None = None, context: Optional[Context] = None) -> Any: ...
@overload
def min(*xs: _Operand, out: _ArrayT, context: Optional[Context] = None) -> _ArrayT: ...

# OpenVINO's bitwise ops and shifts, PRelu and FakeQuantize (auto_broadcast).
@overload
def bitwise_and(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def bitwise_and(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def bitwise_or(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def bitwise_or(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def bitwise_xor(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def bitwise_xor(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def bitwise_left_shift(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def bitwise_left_shift(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def bitwise_right_shift(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def bitwise_right_shift(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def prelu(
    x: _Operand,
    slope: _Operand,
    out: None = None,
    *,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def prelu(
    x: _Operand,
    slope: _Operand,
    out: _ArrayT,
    *,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def fake_quantize(
    x: _Operand,
    input_low: _Operand,
    input_high: _Operand,
    output_low: _Operand,
    output_high: _Operand,
    out: None = None,
    *,
    levels: int,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def fake_quantize(
    x: _Operand,
    input_low: _Operand,
    input_high: _Operand,
    output_low: _Operand,
    output_high: _Operand,
    out: _ArrayT,
    *,
    levels: int,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
) -> _ArrayT: ...

# ONNX's ops where its meaning differs from OpenVINO's (the numpy rule only).
@overload
def bit_shift(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    direction: Literal["LEFT", "RIGHT", "left", "right"],
    context: Optional[Context] = None,
) -> Any: ...
@overload
def bit_shift(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    direction: Literal["LEFT", "RIGHT", "left", "right"],
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def onnx_prelu(
    x: _Operand,
    slope: _Operand,
    out: None = None,
    *,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def onnx_prelu(
    x: _Operand,
    slope: _Operand,
    out: _ArrayT,
    *,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def onnx_mod(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    fmod: Literal[0, 1] = 0,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def onnx_mod(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    fmod: Literal[0, 1] = 0,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def onnx_div(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def onnx_div(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    context: Optional[Context] = None,
) -> _ArrayT: ...
@overload
def onnx_pow(
    a: _Operand,
    b: _Operand,
    out: None = None,
    *,
    context: Optional[Context] = None,
) -> Any: ...
@overload
def onnx_pow(
    a: _Operand,
    b: _Operand,
    out: _ArrayT,
    *,
    context: Optional[Context] = None,
) -> _ArrayT: ...

# Expressions of element-wise ops, run in one call: operands by the names in the text; a
# Python scalar operand is a constant of the arrays' dtype, as a number in the text.
class Expression:
    def __init__(
        self,
        text: str,
        *,
        auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
        axis: int = -1,
    ) -> None: ...
    @property
    def inputs(self) -> Tuple[str, ...]: ...
    @overload
    def evaluate(
        self,
        operands: Optional[Mapping[str, _Operand]] = None,
        /,
        *,
        out: None = None,
        **named: _Operand,
    ) -> Any: ...
    @overload
    def evaluate(
        self,
        operands: Optional[Mapping[str, _Operand]] = None,
        /,
        *,
        out: _ArrayT,
        **named: _Operand,
    ) -> _ArrayT: ...

@overload
def evaluate(
    expr: str,
    /,
    out: None = None,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
    **operands: _Operand,
) -> Any: ...
@overload
def evaluate(
    expr: str,
    /,
    out: _ArrayT,
    *,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    context: Optional[Context] = None,
    **operands: _Operand,
) -> _ArrayT: ...

# Prepared ops: an element-wise op checked and planned once for its operands' dtypes and
# shapes (a model's load), run many times on new arrays of exactly those (every inference).
class PreparedOp:
    def __init__(
        self,
        op: str,
        dtypes: Sequence[npt.DTypeLike],
        shapes: Sequence[_Shape],
        *,
        auto_broadcast: Optional[Union[_AutoBroadcast, str]] = None,
        axis: int = -1,
        **attributes: Any,
    ) -> None: ...
    @property
    def op(self) -> str: ...
    @property
    def dtypes(self) -> Tuple[np.dtype, ...]: ...
    @property
    def shapes(self) -> Tuple[Tuple[int, ...], ...]: ...
    @property
    def output_dtype(self) -> np.dtype: ...
    @property
    def output_shape(self) -> Tuple[int, ...]: ...
    @overload
    def __call__(
        self, *operands: npt.ArrayLike, out: None = None, context: Optional[Context] = None
    ) -> Any: ...
    @overload
    def __call__(
        self, *operands: npt.ArrayLike, out: _ArrayT, context: Optional[Context] = None
    ) -> _ArrayT: ...
