from typing import Literal, overload, Optional, Sequence, SupportsIndex, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Shape = Union[SupportsIndex, Sequence[SupportsIndex]]
_Mode = Literal["numpy", "bidirectional", "explicit", "none", "pdpd", "axes"]
_ArrayT = TypeVar("_ArrayT", bound=np.ndarray)

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
