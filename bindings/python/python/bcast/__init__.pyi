from typing import Literal, overload, Optional, Sequence, SupportsIndex, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Shape = Union[SupportsIndex, Sequence[SupportsIndex]]
_Mode = Literal["numpy", "bidirectional", "explicit", "none", "pdpd", "axes"]
_ArrayT = TypeVar("_ArrayT", bound=np.ndarray)
_AutoBroadcast = Literal["numpy", "none", "pdpd"]

class BroadcastError(ValueError): ...

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

# Element-wise ops under OpenVINO's auto-broadcast rules.
@overload
def add(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def add(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def subtract(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def subtract(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def multiply(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def multiply(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def maximum(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def maximum(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def minimum(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def minimum(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def squared_difference(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def squared_difference(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def power(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def power(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def floor_mod(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def floor_mod(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def mod(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def mod(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def equal(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def equal(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def not_equal(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def not_equal(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def less(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def less(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def less_equal(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def less_equal(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def greater(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def greater(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def greater_equal(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def greater_equal(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def logical_and(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def logical_and(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def logical_or(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def logical_or(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def logical_xor(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def logical_xor(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def divide(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    pythondiv: bool = True,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def select(
    cond: npt.ArrayLike,
    then: npt.ArrayLike,
    else_: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: None = None,
) -> np.ndarray: ...
@overload
def divide(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    pythondiv: bool = True,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
@overload
def select(
    cond: npt.ArrayLike,
    then: npt.ArrayLike,
    else_: npt.ArrayLike,
    auto_broadcast: Union[_AutoBroadcast, str] = "numpy",
    axis: int = -1,
    out: _ArrayT = ...,
) -> _ArrayT: ...
