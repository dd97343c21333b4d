"""The docstrings of the element-wise functions (numpy's format): one entry per op of the
library's op table, keyed by the op's name. ``bcast/__init__.py`` makes the functions from
the table and gives each its docstring from here (``docstring``); a test checks that the
entries are exactly the table's ops. The common sections (parameters, returns, raises,
Python scalars) are written once, below; an entry says what is the op's own."""

import textwrap
from functools import partial
from typing import Dict, NamedTuple, Optional, Tuple


class Doc(NamedTuple):
    """What one op's docstring says of it."""

    what: str
    """The op, in the first line (``a + b`` (integers wrap))."""
    dtypes: str
    """The dtypes the operands take ('any number type')."""
    notes: str
    """How it relates to numpy (and to ONNX or OpenVINO): the Notes section."""
    example: str
    """Doctest lines, run by the tests (after ``import numpy as np, bcast``)."""
    operands: Tuple[str, ...] = ("a", "b")
    """The operands' names (one starred name for a variadic op)."""
    rule: str = ""
    """For an op without ``auto_broadcast``: how its operands broadcast."""
    params: str = ""
    """The op's attributes, as Parameters entries."""
    operand_text: str = ""
    """Replaces "The operands, of one dtype: <dtypes>" where that is not so."""
    full: Optional[str] = None
    """A whole docstring, written out (divide, select)."""


COMPARE_NOTES = """As numpy's comparison ufuncs, bit for bit (NaN compares unequal; bools compare as
0 < 1). A Python int beyond the other operand's integer dtype compares exactly, as in
numpy 2 (``bcast.less(np.uint8(1), 300)`` is True)."""

LOGICAL_NOTES = """Bool operands only (OpenVINO's rule): numpy's logical ufuncs take any dtype by
truthiness; bcast's spelling of that is ``bcast.not_equal(a, 0)`` first. On bools, equal to
numpy's bit for bit."""


# What several entries say alike, written once: the comparisons and the logical ops share
# their operands' dtypes and their Notes, ONNX's variadic ops their operands and rule; each
# partial fills those fields of a `Doc`.
_comparison = partial(Doc, dtypes="any number type or bool", notes=COMPARE_NOTES)
_logical = partial(Doc, dtypes="bool only", notes=LOGICAL_NOTES)
_variadic = partial(
    Doc, operands=("*xs",), rule="with every operand broadcast together under the numpy rule"
)
_VARIADIC_FLOATS = ("The operands (one or more), of one dtype: float16, bfloat16, float32 or "
                    "float64 (ONNX's list)")
_VARIADIC_NUMBERS = "The operands (one or more), of one number dtype"
_ONNX_RULE = "under the numpy rule (ONNX's multidirectional broadcasting)"

_DIVIDE = """``a / b``, element-wise, under OpenVINO's auto-broadcast rules.

Floats divide as IEEE (a zero divisor gives inf or nan); integers floor the quotient when
`pythondiv` (OpenVINO's default, Python's ``//``: -7 / 2 = -4), else truncate it toward
zero (C's ``/``: -3). ``MIN / -1`` wraps to ``MIN``.

Parameters
----------
a, b : array_like or Python scalar
    The operands, of one number dtype. Read in place (any strides, no copy). A Python
    int or float takes the other operand's dtype as in numpy 2, as for ``add``.
out : ndarray, optional
    Where to write the result: writeable, of the operands' dtype and the output shape.
    Positional (third) or keyword, as in numpy.
pythondiv : bool, optional, keyword-only
    Floor (True, default) or truncate (False) integer quotients.
auto_broadcast : {"numpy", "none", "pdpd"}, optional, keyword-only
    The rule, as for ``add``.
axis : int, optional, keyword-only
    ``"pdpd"`` only: the first axis of `a` that `b` lies on; -1 (default) right-aligns.

Returns
-------
ndarray or numpy scalar
    The quotients; `out` itself when given; a numpy scalar when both operands are
    scalars or 0-d.

Raises
------
BroadcastError
    The shapes break the rule, the dtypes differ, an integer divisor is 0, or `out` has
    the wrong shape.
TypeError
    A bool operand, or `out` of another dtype.
OverflowError
    A Python int that the integer dtype of the other operand cannot hold.

Notes
-----
Floats: ``numpy.divide``, bit for bit. Integers: not ``numpy.divide`` (which returns
float64 quotients) but ``numpy.floor_divide`` (``//``) with `pythondiv` (bit for bit,
``MIN // -1`` included), except that a zero divisor raises ``BroadcastError`` (numpy: 0
and a warning). numpy's true quotient of integers:
``bcast.divide(a.astype(np.float64), b.astype(np.float64))``. Bool operands are refused
(numpy's ``floor_divide`` takes them). Python scalars, dtypes and `out`: as for ``add``.

Examples
--------
>>> import numpy as np, bcast
>>> bcast.divide(np.array([-7, 7]), 2)
array([-4,  3])
>>> bcast.divide(np.array([-7, 7]), 2, pythondiv=False)
array([-3,  3])"""

_SELECT = """``cond ? then : else_``, element-wise, under OpenVINO's auto-broadcast rules (Select-1).

Parameters
----------
cond : array_like of bool
    The condition (a Python bool is a 0-d one).
then, else_ : array_like or Python scalar
    The values, of one dtype (any bcast dtype, str included). Numbers and bools are read
    in place (any strides, no copy). A Python int or float takes the other's dtype as
    in numpy 2, as for ``add``.
out : ndarray, optional
    Where to write the result: writeable, of the values' dtype and the output shape.
    Positional (fourth) or keyword.
auto_broadcast : {"numpy", "none", "pdpd"}, optional, keyword-only
    ``"numpy"`` (default): the three shapes broadcast together; ``"none"``: all three
    equal; ``"pdpd"``: the output is `then`'s shape, and `else_` and `cond` are each laid
    on it from `axis`.
axis : int, optional, keyword-only
    ``"pdpd"`` only; -1 (default) right-aligns.

Returns
-------
ndarray
    The picks, of the values' dtype (strings: the wider of the two ``<U`` widths, as
    numpy); `out` itself when given; 0-d for 0-d inputs, as ``numpy.where``.

Raises
------
BroadcastError
    The shapes break the rule, `then` and `else_` differ in dtype, or `out` has the
    wrong shape.
TypeError
    `cond` is not bool, or `out` has another dtype.
OverflowError
    A Python int that the integer dtype of the other value cannot hold.

Notes
-----
``numpy.where(cond, then, else_)``, except: `cond` must be bool (numpy takes any dtype
by truthiness: write ``bcast.not_equal(cond, 0)``); `then` and `else_` arrays of
different dtypes raise ``BroadcastError`` (numpy promotes); a Python int that the other
value's integer dtype cannot hold raises ``OverflowError`` as numpy's ufuncs do, where
``numpy.where`` wraps it silently (300 in uint8 becomes 44).

Examples
--------
>>> import numpy as np, bcast
>>> bcast.select(np.array([[True], [False]]), np.array([1.0, 2.0]), -1.0)
array([[ 1.,  2.],
       [-1., -1.]])"""


_AUTO_BROADCAST = """auto_broadcast : {"numpy", "none", "pdpd"}, optional, keyword-only
    The rule: ``"numpy"`` (default) right-aligns the shapes, and per axis the dims are
    equal or one is 1 (both operands stretch); ``"none"`` needs equal shapes; ``"pdpd"``
    lays `b` (trailing 1s dropped) on `a`'s axes from `axis`, and the output is `a`'s shape.
axis : int, optional, keyword-only
    ``"pdpd"`` only: the first axis of `a` that `b` lies on; -1 (default) right-aligns."""

_RETURNS = """Returns
-------
ndarray or numpy scalar
    The result (bool for comparisons and logical ops, else the operands' dtype); `out`
    itself when given; a numpy scalar when both operands are scalars or 0-d, as numpy's
    ufuncs return."""

_RAISES = """Raises
------
BroadcastError
    The shapes break the rule, the operands' dtypes differ, an integer division or
    modulo by zero, or `out` has the wrong shape. A subclass of ``ValueError``.
TypeError
    The op is not defined for the dtype, or `out` has another dtype.
OverflowError
    A Python int that the integer dtype of the other operand cannot hold (as numpy 2)."""

_SCALARS = """Python scalars, as numpy 2: with a float array a Python int or float takes the array's
dtype; with an integer array a Python int takes the array's dtype and a Python float makes
both float64; with a bool array a Python int makes both int64. Two Python scalars compute
in int64 or float64. Arrays (numpy scalars and 0-d arrays included) are not promoted:
operands of different dtypes raise ``BroadcastError`` where numpy would promote; cast
first (``a.astype(np.result_type(a, b))``). `out` must have the result's dtype exactly
(numpy casts into it)."""

_SCALARS_MANY = """Python scalars, as numpy 2: each takes the dtype of the first array operand as it would
in ``add`` (a Python float with integer arrays makes them float64). Arrays (numpy scalars
and 0-d arrays included) are not promoted: operands of different dtypes raise
``BroadcastError``; cast first. `out` must have the result's dtype exactly."""


def docstring(name: str, takes_auto_broadcast: bool, doc: Doc) -> str:
    """The docstring of the function of op `name`."""
    if doc.full is not None:
        return doc.full
    variadic = doc.operands[0].startswith("*")
    names = ", ".join(doc.operands)
    head = (f"{doc.what}, element-wise, under OpenVINO's auto-broadcast rules."
            if takes_auto_broadcast else f"{doc.what}, element-wise, {doc.rule}.")
    what = doc.operand_text or f"The operands, of one dtype: {doc.dtypes}"
    kind = "array_like or Python scalar"
    if variadic:
        where = "Keyword-only (the operands are variadic)."
    else:
        position = ("third", "fourth", "fifth", "sixth")[len(doc.operands) - 2]
        where = f"Positional ({position}) or keyword, as in numpy."
    operands = textwrap.fill(
        f"{what}. Read in place (any strides, no copy). A Python int or float takes the "
        "other operand's dtype as in numpy 2 (NEP 50): see Notes.",
        width=88, initial_indent="    ", subsequent_indent="    ")
    params = [
        f"{names} : {kind}\n{operands}",
        f"""out : ndarray, optional
    Where to write the result: writeable, of the result's dtype and shape, not overlapping
    an input. {where}""",
    ]
    if doc.params:
        params.append(doc.params)
    if takes_auto_broadcast:
        params.append(_AUTO_BROADCAST)
    sections = [
        head,
        "Parameters\n----------\n" + "\n".join(params),
        _RETURNS,
        _RAISES,
        "Notes\n-----\n" + doc.notes,
        _SCALARS_MANY if variadic or len(doc.operands) > 2 else _SCALARS,
        "Examples\n--------\n>>> import numpy as np, bcast\n" + doc.example,
    ]
    return "\n\n".join(sections)


DOCS: Dict[str, Doc] = {
    "add": Doc(
        what='``a + b`` (integers wrap)',
        dtypes='any number type',
        notes="""``numpy.add``, bit for bit (integers wrap as numpy's do), except: bool operands are
refused (numpy computes logical or; bcast's spelling is ``logical_or``).""",
        example=""">>> bcast.add(np.array([[1], [2]], np.int32), np.array([10, 20, 30], np.int32))
array([[11, 21, 31],
       [12, 22, 32]], dtype=int32)
>>> bcast.add(np.ones(3, np.float32), 1.0)
array([2., 2., 2.], dtype=float32)""",
    ),
    "subtract": Doc(
        what='``a - b`` (integers wrap)',
        dtypes='any number type',
        notes="""``numpy.subtract``, bit for bit (integers wrap as numpy's do).""",
        example=""">>> bcast.subtract(np.array([5, 6], np.int64), 1)
array([4, 5])""",
    ),
    "multiply": Doc(
        what='``a * b`` (integers wrap)',
        dtypes='any number type',
        notes="""``numpy.multiply``, bit for bit (integers wrap as numpy's do), except: bool operands
are refused (numpy computes logical and; bcast's spelling is ``logical_and``).""",
        example=""">>> bcast.multiply(np.array([2.0, 3.0]), np.array([4.0]))
array([ 8., 12.])""",
    ),
    "maximum": Doc(
        what="``a < b ? b : a`` (std::max, OpenVINO's Maximum)",
        dtypes='any number type',
        notes="""Differs from ``numpy.maximum`` on purpose (OpenVINO's rule, ``a < b ? b : a``):

- NaN: where `b` is NaN and `a` is not, the result is `a` (numpy: NaN);
- signed zeros: max(-0.0, 0.0) is `a`, -0.0 (numpy's float32/float64: `b`);
- bool operands are refused (numpy computes logical or; use ``logical_or``).

numpy's spelling of bcast's result: ``np.where(a < b, b, a)``. Everywhere else it equals
``numpy.maximum`` bit for bit.""",
        example=""">>> bcast.maximum(np.array([1, 5]), np.array([3, 2]))
array([3, 5])
>>> bcast.maximum(np.array([1.0, np.nan]), np.array([np.nan, 1.0]))
array([ 1., nan])""",
    ),
    "minimum": Doc(
        what="``b < a ? b : a`` (std::min, OpenVINO's Minimum)",
        dtypes='any number type',
        notes="""Differs from ``numpy.minimum`` on purpose (OpenVINO's rule, ``b < a ? b : a``):

- NaN: where `b` is NaN and `a` is not, the result is `a` (numpy: NaN);
- signed zeros: min(0.0, -0.0) is `a`, 0.0 (numpy's float32/float64: `b`);
- bool operands are refused (numpy computes logical and; use ``logical_and``).

numpy's spelling of bcast's result: ``np.where(b < a, b, a)``. Everywhere else it equals
``numpy.minimum`` bit for bit.""",
        example=""">>> bcast.minimum(np.array([1, 5]), np.array([3, 2]))
array([1, 2])""",
    ),
    "squared_difference": Doc(
        what='``(a - b) * (a - b)``',
        dtypes='any number type',
        notes="""numpy has no such ufunc; its spelling is ``np.square(np.subtract(a, b))``, equal bit for
bit except in float16 and bfloat16, which bcast computes in float32 and rounds once (numpy
rounds the difference first).""",
        example=""">>> bcast.squared_difference(np.array([1.0, 4.0]), 2.0)
array([1., 4.])""",
    ),
    "power": Doc(
        what='``a ** b`` (integers: computed in float64, truncated back)',
        dtypes='any number type',
        notes="""Differs from ``numpy.power`` on purpose (OpenVINO's reference):

- integers are computed in float64 and truncated: a negative exponent gives
  ``trunc(a ** b)`` (2 ** -1 is 0; numpy raises ``ValueError``), results beyond 2**53 are
  rounded, and results beyond the type saturate at its bounds (numpy is exact and wraps);
- floats use the C library's ``pow`` in their type (float16/bfloat16 in float32): within
  1 ulp of numpy's, which is vectorised on some CPUs;
- bool operands are refused.""",
        example=""">>> bcast.power(np.array([2, 3]), np.array([3, -1]))
array([8, 0])""",
    ),
    "floor_mod": Doc(
        what="The remainder with the divisor's sign (Python's ``%``, OpenVINO's FloorMod)",
        dtypes='any number type',
        notes="""numpy's name is ``numpy.remainder`` (also ``numpy.mod``). Integers: equal bit for bit,
except that a zero divisor raises ``BroadcastError`` (numpy: 0 and a warning). Floats:
OpenVINO's ``a - b * floor(a / b)``, computed in float64, differs from numpy's exact
remainder where that formula rounds: a zero result is +0.0 (numpy: the divisor's sign),
an infinite divisor gives NaN (numpy: `a` or ±inf, as Python), and a large ``|a / b|``
loses the remainder (``1e30 % 7`` is 0; numpy: 1). Bool operands are refused.""",
        example=""">>> bcast.floor_mod(np.array([-7, 7]), 2)
array([1, 1])""",
    ),
    "mod": Doc(
        what="The remainder with the dividend's sign (C's ``%``, ``fmod``; OpenVINO's Mod)",
        dtypes='any number type',
        notes="""This is ``numpy.fmod``, bit for bit, not ``numpy.mod`` (which is ``floor_mod``), except
that an integer zero divisor raises ``BroadcastError`` (numpy: 0 and a warning) and bool
operands are refused.""",
        example=""">>> bcast.mod(np.array([-7, 7]), 2)
array([-1,  1])""",
    ),
    "equal": _comparison(
        what='``a == b`` (bool out)',
        example=""">>> bcast.equal(np.array([1, 2]), 2)
array([False,  True])""",
    ),
    "not_equal": _comparison(
        what='``a != b`` (bool out)',
        example=""">>> bcast.not_equal(np.array([1, 2]), 2)
array([ True, False])""",
    ),
    "less": _comparison(
        what='``a < b`` (bool out)',
        example=""">>> bcast.less(np.array([1, 2], np.uint8), 300)
array([ True,  True])""",
    ),
    "less_equal": _comparison(
        what='``a <= b`` (bool out)',
        example=""">>> bcast.less_equal(np.array([1, 2]), 2)
array([ True,  True])""",
    ),
    "greater": _comparison(
        what='``a > b`` (bool out)',
        example=""">>> bcast.greater(np.array([1, 2]), 1)
array([False,  True])""",
    ),
    "greater_equal": _comparison(
        what='``a >= b`` (bool out)',
        example=""">>> bcast.greater_equal(np.array([1, 2]), 2)
array([False,  True])""",
    ),
    "logical_and": _logical(
        what='``a and b``',
        example=""">>> bcast.logical_and(np.array([True, False]), True)
array([ True, False])""",
    ),
    "logical_or": _logical(
        what='``a or b``',
        example=""">>> bcast.logical_or(np.array([True, False]), False)
array([ True, False])""",
    ),
    "logical_xor": _logical(
        what='``a != b`` on bools',
        example=""">>> bcast.logical_xor(np.array([True, False]), True)
array([False,  True])""",
    ),
    "divide": Doc(what="", dtypes="", notes="", example="", full=_DIVIDE),
    "select": Doc(what="", dtypes="", notes="", example="", operands=("cond", "then", "else_"),
                  full=_SELECT),
    "sum": _variadic(
        what="The sum of the operands (ONNX Sum)",
        dtypes="float16, bfloat16, float32 or float64 (ONNX's list)",
        operand_text=_VARIADIC_FLOATS,
        notes="""ONNX Sum, equal to ``functools.reduce(numpy.add, xs)`` bit for bit: a left fold from the
first operand in one pass over the output (no temporaries), so a sum of -0.0s is -0.0.
float16 and bfloat16 add in float32 and round once per step. Integer operands are refused
(ONNX's type list).""",
        example=""">>> bcast.sum(np.array([1.0, 2.0]), np.array([[10.0], [20.0]]), 0.5)
array([[11.5, 12.5],
       [21.5, 22.5]])""",
    ),
    "mean": _variadic(
        what="The mean of the operands (ONNX Mean)",
        dtypes="float16, bfloat16, float32 or float64",
        operand_text=_VARIADIC_FLOATS,
        notes="""ONNX Mean as its reference computes it: the left-fold sum (as ``sum``), then one division
by the count, bit for bit. Integer operands are refused (ONNX's type list).""",
        example=""">>> bcast.mean(np.array([1.0, 2.0], np.float32), np.array([3.0], np.float32))
array([2. , 2.5], dtype=float32)""",
    ),
    "max": _variadic(
        what="The largest of the operands (ONNX Max)",
        dtypes="any number type",
        operand_text=_VARIADIC_NUMBERS,
        notes="""ONNX Max, which is ``numpy.maximum`` folded over the operands, bit for bit: NaN
propagates, and of -0.0 and 0.0 the later operand wins. Not ``maximum``, OpenVINO's rule
(``a < b ? b : a``), which returns the first operand where a NaN is involved. Bool
operands are refused. Inside the ``bcast`` module this name shadows the builtin ``max``.""",
        example=""">>> bcast.max(np.array([1.0, np.nan]), np.array([np.nan, 1.0]), 0.0)
array([nan, nan])
>>> bcast.max(np.array([1, 5], np.int8), np.array([3], np.int8))
array([3, 5], dtype=int8)""",
    ),
    "min": _variadic(
        what="The smallest of the operands (ONNX Min)",
        dtypes="any number type",
        operand_text=_VARIADIC_NUMBERS,
        notes="""ONNX Min, which is ``numpy.minimum`` folded over the operands, bit for bit: NaN
propagates, and of -0.0 and 0.0 the later operand wins. Not ``minimum``, OpenVINO's rule.
Bool operands are refused. Inside the ``bcast`` module this name shadows the builtin
``min``.""",
        example=""">>> bcast.min(np.array([1, 5]), np.array([[3], [0]]))
array([[1, 3],
       [0, 0]])""",
    ),
    "bitwise_and": Doc(
        what="``a & b`` (OpenVINO BitwiseAnd, ONNX BitwiseAnd)",
        dtypes="any integer type or bool",
        notes="""``numpy.bitwise_and``, bit for bit.""",
        example=""">>> bcast.bitwise_and(np.array([12, 10], np.uint8), 6)
array([4, 2], dtype=uint8)""",
    ),
    "bitwise_or": Doc(
        what="``a | b`` (OpenVINO BitwiseOr, ONNX BitwiseOr)",
        dtypes="any integer type or bool",
        notes="""``numpy.bitwise_or``, bit for bit.""",
        example=""">>> bcast.bitwise_or(np.array([12, 10], np.uint8), 1)
array([13, 11], dtype=uint8)""",
    ),
    "bitwise_xor": Doc(
        what="``a ^ b`` (OpenVINO BitwiseXor, ONNX BitwiseXor)",
        dtypes="any integer type or bool",
        notes="""``numpy.bitwise_xor``, bit for bit.""",
        example=""">>> bcast.bitwise_xor(np.array([True, False]), True)
array([False,  True])""",
    ),
    "bitwise_left_shift": Doc(
        what="``a << b`` (OpenVINO BitwiseLeftShift)",
        dtypes="any integer type",
        notes="""OpenVINO's BitwiseLeftShift: the value is shifted as C++ shifts a promoted operand on x86,
by the count's low 5 bits (low 6 for 64-bit types), and wrapped to the type. numpy's
``left_shift`` agrees for counts from 0 to the type's width minus 1; for other counts (and
negative ones) the results differ.""",
        example=""">>> bcast.bitwise_left_shift(np.array([1, 3], np.int32), np.array([4, 1], np.int32))
array([16,  6], dtype=int32)""",
    ),
    "bitwise_right_shift": Doc(
        what="``a >> b`` (OpenVINO BitwiseRightShift)",
        dtypes="any integer type",
        notes="""OpenVINO's BitwiseRightShift: arithmetic for signed types, logical for unsigned ones, by
the count's low 5 bits (low 6 for 64-bit types), as ``bitwise_left_shift``. numpy's
``right_shift`` agrees for counts from 0 to the type's width minus 1.""",
        example=""">>> bcast.bitwise_right_shift(np.array([-16, 16], np.int8), 2)
array([-4,  4], dtype=int8)""",
    ),
    "bit_shift": Doc(
        what="``a << b`` or ``a >> b`` (ONNX BitShift)",
        dtypes="any integer type",
        rule=_ONNX_RULE,
        params="""direction : {"LEFT", "RIGHT"}, keyword-only
    The shift's direction (ONNX's attribute; required, as in ONNX).""",
        notes="""ONNX BitShift (opset 28: every integer type; a right shift of a signed value is
arithmetic). A count of the type's width or more, or a negative one, shifts every bit out:
0, or -1 for a negative value shifted right. numpy's ``left_shift`` / ``right_shift``
agree, bit for bit.""",
        example=""">>> bcast.bit_shift(np.array([1, 2], np.uint8), np.array([3, 8], np.uint8), direction="LEFT")
array([8, 0], dtype=uint8)""",
    ),
    "prelu": Doc(
        what="``x < 0 ? x * slope : x`` (OpenVINO PRelu)",
        dtypes="any number type",
        operands=("x", "slope"),
        rule="with OpenVINO's PRelu rule: a 1-D `slope` whose length is the channel count ``x.shape[1]`` goes on axis 1, any other `slope` broadcasts onto `x` under the numpy rule",
        notes="""OpenVINO's PRelu, bit for bit (integers wrap). The output has `x`'s shape: `slope`
broadcasts onto `x`, never the reverse. numpy's spelling: ``np.where(x < 0, x * s, x)``
with ``s`` the slope reshaped as the rule lays it. ONNX's PRelu (slope broadcast onto `x`
by the numpy rule only, ONNX's type list) is ``onnx_prelu``.""",
        example=""">>> x = np.array([[[-1.0, 1.0, -2.0], [-1.0, 1.0, -2.0]]])  # 2 channels on axis 1
>>> bcast.prelu(x, np.array([0.5, 0.25]))
array([[[-0.5 ,  1.  , -1.  ],
        [-0.25,  1.  , -0.5 ]]])""",
    ),
    "onnx_prelu": Doc(
        what="``x < 0 ? x * slope : x`` (ONNX PRelu)",
        dtypes="int32, int64, uint32, uint64, float16, bfloat16, float32 or float64 (ONNX's list)",
        operands=("x", "slope"),
        rule="with `slope` broadcast onto `x` (ONNX's unidirectional broadcasting)",
        notes="""ONNX PRelu, bit for bit (``np.where(x < 0, x * slope, x)``). Unlike OpenVINO's ``prelu``, a
1-D `slope` is right-aligned as numpy aligns it, not laid on the channel axis.""",
        example=""">>> bcast.onnx_prelu(np.array([[-2.0, 2.0]], np.float32), np.array([0.5, 0.1], np.float32))
array([[-1.,  2.]], dtype=float32)""",
    ),
    "fake_quantize": Doc(
        what="`x` quantized to `levels` steps (OpenVINO FakeQuantize)",
        dtypes="float16, bfloat16, float32 or float64",
        operands=("x", "input_low", "input_high", "output_low", "output_high"),
        operand_text="The value and the four limits, of one float dtype",
        params="""levels : int, keyword-only
    The number of quantization levels (2 or more; 256 for 8 bits). Required, as in
    OpenVINO.""",
        notes="""OpenVINO's reference, bit for bit: ``output_low`` where ``x <= min(input_low,
input_high)``, ``output_high`` where ``x > max(input_low, input_high)``, else
``round((x - input_low) / (input_high - input_low) * (levels - 1)) / (levels - 1) *
(output_high - output_low) + output_low`` with ties rounded to even, in the operands' type
(float16 and bfloat16 in float32). The limits broadcast onto `x` (under ``"numpy"``, a
limit that would grow `x`'s shape is refused); ``"pdpd"`` lays each limit on `x` from
`axis`.""",
        example=""">>> x = np.array([-1.0, 0.2, 0.6, 2.0], np.float32)
>>> lo, hi = np.float32(0), np.float32(1)
>>> bcast.fake_quantize(x, lo, hi, lo, hi, levels=3)
array([0. , 0. , 0.5, 1. ], dtype=float32)""",
    ),
    "onnx_mod": Doc(
        what="The remainder of ``a / b`` (ONNX Mod)",
        dtypes="any number type",
        rule=_ONNX_RULE,
        params="""fmod : {0, 1}, optional, keyword-only
    0 (default): the remainder takes the divisor's sign (Python's ``%``, ``numpy.mod``,
    floats included); 1: the dividend's (C's ``fmod``, ``numpy.fmod``).""",
        notes="""ONNX Mod: with ``fmod=0`` ``numpy.mod`` bit for bit on every type (floats included, the
sign of a zero remainder from the divisor); with ``fmod=1`` ``numpy.fmod``. Unlike
OpenVINO's ``floor_mod``, which computes ``a - b * floor(a / b)`` in float64. An integer
zero divisor raises ``BroadcastError`` (numpy: 0 and a warning). Bool operands are
refused.""",
        example=""">>> bcast.onnx_mod(np.array([-7.0, 7.0]), 2.0)
array([1., 1.])
>>> bcast.onnx_mod(np.array([-7, 7]), 2, fmod=1)
array([-1,  1])""",
    ),
    "onnx_div": Doc(
        what="``a / b``, integers truncated (ONNX Div)",
        dtypes="any number type",
        rule=_ONNX_RULE,
        notes="""ONNX Div: floats as ``numpy.divide``, bit for bit; integer quotients truncated toward
zero (C's ``/``; ``divide(..., pythondiv=False)``), ``MIN / -1`` wrapping to ``MIN``. An
integer zero divisor raises ``BroadcastError``. Bool operands are refused.""",
        example=""">>> bcast.onnx_div(np.array([-7, 7]), 2)
array([-3,  3])""",
    ),
    "onnx_pow": Doc(
        what="``a ** b`` with the base's type (ONNX Pow)",
        dtypes="int32, int64, float16, bfloat16, float32 or float64 for `a`; any number type for `b`",
        rule=_ONNX_RULE,
        operand_text="The base, of int32, int64, float16, bfloat16, float32 or float64 (ONNX's list), and the exponent, of any number type (it may differ from the base's)",
        notes="""ONNX Pow (opset 15): the result has the base's dtype. Integer bases are raised exactly and
wrap (a negative exponent truncates: ``2 ** -1`` is 0); float bases use ``pow`` in float64
where numpy would promote (an exponent of a 32/64-bit integer type or float64), else in
their own type. Within 1 ulp of ``numpy.power`` computed that way and cast back. Python
scalars: as in ``add`` (a Python float exponent with an integer base makes both float64).""",
        example=""">>> bcast.onnx_pow(np.array([2, 3], np.int32), np.array([3, 2], np.int64))
array([8, 9], dtype=int32)
>>> bcast.onnx_pow(np.array([4.0], np.float32), np.array([0.5]))
array([2.], dtype=float32)""",
    ),
}
