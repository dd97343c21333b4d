#!/usr/bin/env python3
"""Writes the conformance suite under conformance/cases/ (see conformance/README.md).

    python3 -m pip install -r conformance/requirements.txt
    python3 conformance/generate.py            # rewrites conformance/cases/ from scratch

Expected outputs never come from bcast. Each group names its oracle in every case's
"source" field:

- spec:      the examples of the seed specs (OpenVINO broadcast rules, Broadcast-1/3 IR
             examples, nGraph Broadcast, SONNX Broadcast, ONNX Broadcasting.md); the
             values are numpy's (np.broadcast_to on the shapes the spec gives).
- openvino:  OpenVINO's CPU plugin running opset3 Broadcast (numpy, bidirectional,
             explicit), each call in a worker process that may crash; cross-checked
             against numpy, which decides where OpenVINO has a known fault (below).
- pdpd:      the PDPD rule of OpenVINO's broadcast-rules spec, built in numpy (reshape the
             data onto the target's axes, then np.broadcast_to), cross-checked against
             OpenVINO opset3 and opset1 PDPD loaded from IR text (see below).
- axes:      nGraph's v0 Broadcast rule (broadcast_axes), built in numpy the same way.
- multi:     numpy's np.broadcast_arrays (the SONNX / ONNX multidirectional rule).
- dtypes:    every npy dtype with special values (NaN payloads, -0.0, inf, extremes),
             Fortran-order and big-endian inputs; numpy, cross-checked with OpenVINO.
- onnx:      the onnx package's own Expand backend cases, and ONNX Runtime's Expand
             (strings and every other dtype), cross-checked with numpy.
- errors:    every rule of every mode broken at least once; expected: a rejection. What
             OpenVINO (and ONNX Runtime for Expand) does with the same input is recorded.

Where OpenVINO accepts what our rules reject, the case still expects the rejection, and
"note" says what OpenVINO does. bcast's rules are stricter than OpenVINO's in places; they are
stated in the planner doc comments in src/planners/*.rs, and this script restates them below
(`*_rule` functions) from the spec text, independently of the Rust code.

Known faults of OpenVINO 2026.4 (CPU plugin), measured with this script:
- f64 is computed in f32: NaN payloads are lost, 1e300 becomes f32::MAX, 5e-324 becomes 0.
- i64 and u64 are narrowed to 32 bits: i64::MAX comes back as -1.
  For these three dtypes OpenVINO's shape is compared and the values are numpy's.
- Broadcasting a zero-size data tensor ([0,1] to [0,3]) kills the process with SIGFPE.
- An empty target_shape constant (rank-0 output) crashes it.
- The opset1 Python builder cannot make a PDPD Broadcast (it always asks for a third input).
  Loaded from IR text, opset1 PDPD works with a dummy third input and the attribute
  `mode.auto_broadcast_axis`, and opset3 PDPD works with two inputs and `mode.mode.axis`.
Every OpenVINO call runs in a worker process: a crash is recorded ("crashed: SIGFPE") and a
new worker takes the next call.
"""

from __future__ import annotations

import json
import os
import pickle
import select
import shutil
import signal
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"

# ---------------------------------------------------------------------------------------
# The rules, restated from the specs. Each returns the output shape or raises Rejected.
# ---------------------------------------------------------------------------------------


class Rejected(Exception):
    pass


def check_shape(values, what="target_shape"):
    for i, v in enumerate(values):
        if v < 0:
            raise Rejected(f"{what} value {v} at index {i} is negative")
    if what == "target_shape":
        # A materialised array, like an ndarray, needs the product of its non-zero dims to
        # fit in isize (numpy's broadcast_to would hand out a view of any size).
        n = 1
        for v in values:
            n *= v if v else 1
        if n > 2 ** 63 - 1:
            raise Rejected(f"shape {list(values)} has too many elements to materialise")


def numpy_expected(data, target):
    """One-directional numpy rule: np.broadcast_to is exactly it (output shape = target)."""
    check_shape(target)
    try:
        return np.broadcast_to(data, tuple(target))
    except ValueError as e:
        raise Rejected(str(e)) from None


def bidirectional_expected(data, target):
    """numpy.array(input) * numpy.ones(target_shape): numpy's two-way rule (1 vs 0 is 0)."""
    check_shape(target)
    try:
        shape = np.broadcast_shapes(data.shape, tuple(target))
    except ValueError as e:
        raise Rejected(str(e)) from None
    return np.broadcast_to(data, shape)


def explicit_expected(data, target, axes):
    """Broadcast-1/3 explicit: one strictly increasing axis per data axis, data dim 1 or equal."""
    check_shape(target)
    check_shape(axes, "axes_mapping")
    if len(axes) != data.ndim:
        raise Rejected(f"axes_mapping has {len(axes)} entries, data rank is {data.ndim}")
    for i, a in enumerate(axes):
        if a >= len(target):
            raise Rejected(f"axis {a} out of range for target rank {len(target)}")
        if i > 0 and a <= axes[i - 1]:
            raise Rejected(f"axes_mapping {axes} is not strictly increasing")
    aligned = [1] * len(target)
    for d, a in zip(data.shape, axes):
        if d != target[a] and d != 1:
            raise Rejected(f"data dim {d} cannot become {target[a]}")
        aligned[a] = d
    return np.broadcast_to(data.reshape(aligned), tuple(target))


def pdpd_expected(data, target, axis):
    """broadcast-rules.rst PDPD: B (data) onto A (target) from `axis`; -1 = rank(A) - rank(B);
    trailing 1s of B ignored for the fit; only B -> A (a target 1 never takes a larger data
    dim); the fit must not run past A's end."""
    check_shape(target)
    if axis == -1:
        start = len(target) - data.ndim
        if start < 0:
            raise Rejected("axis -1 means rank(target) - rank(data), which is negative")
    elif axis < -1:
        raise Rejected("only -1 or a non-negative axis is allowed")
    else:
        start = axis
    fitted = list(data.shape)
    while fitted and fitted[-1] == 1:
        fitted.pop()
    if start > len(target) or len(fitted) > len(target) - start:
        raise Rejected("the data runs past the target's end")
    aligned = [1] * len(target)
    for i, d in enumerate(fitted):
        t = target[start + i]
        if d != t and d != 1:
            raise Rejected(f"data dim {d} cannot become {t}")
        aligned[start + i] = d
    return np.broadcast_to(data.reshape(aligned), tuple(target))


def axes_expected(data, target, baxes):
    """nGraph v0: broadcast_axes are the new output axes (a set: unique, any order, < rank);
    the target without them must equal the data shape exactly."""
    check_shape(target)
    check_shape(baxes, "broadcast_axes")
    if len(set(baxes)) != len(baxes):
        raise Rejected(f"broadcast_axes {baxes} repeat an axis")
    for a in baxes:
        if a >= len(target):
            raise Rejected(f"axis {a} out of range for target rank {len(target)}")
    remaining = [t for i, t in enumerate(target) if i not in baxes]
    if remaining != list(data.shape):
        raise Rejected(f"target without broadcast_axes is {remaining}, not {list(data.shape)}")
    aligned = [1 if i in baxes else t for i, t in enumerate(target)]
    return np.broadcast_to(data.reshape(aligned), tuple(target))


def multi_expected(datas):
    """SONNX Broadcast(X0..XL), L >= 0: numpy's broadcast_arrays; no input is an error."""
    if not datas:
        raise Rejected("no inputs")
    try:
        return np.broadcast_arrays(*datas)
    except ValueError as e:
        raise Rejected(str(e)) from None


def expected_of(mode, datas, target=None, axes_mapping=None, axis=None, broadcast_axes=None):
    """Expected outputs (list) for a case, or raises Rejected."""
    if mode == "multi":
        return [c_order(x) for x in multi_expected(datas)]
    (data,) = datas
    if mode == "numpy":
        out = numpy_expected(data, target)
    elif mode == "bidirectional":
        out = bidirectional_expected(data, target)
    elif mode == "explicit":
        out = explicit_expected(data, target, axes_mapping)
    elif mode == "pdpd":
        out = pdpd_expected(data, target, -1 if axis is None else axis)
    elif mode == "axes":
        out = axes_expected(data, target, broadcast_axes)
    else:
        raise ValueError(mode)
    return [c_order(out)]


def c_order(x):
    """A C-ordered copy that keeps rank 0 (np.ascontiguousarray turns () into (1,))."""
    return np.array(x, order="C", copy=True)


# ---------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------

DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "str"]
NP = {
    "bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}
WORDS = ["a", "bé", "", "€uro", "x y", "😀", "long-ish word", "0", "Ω", "tab\tin", "zz", "q"]
# The dtypes OpenVINO's CPU plugin runs (strings are not broadcast by it).
OV_DTYPES = [d for d in DTYPES if d != "str"]
OV_NARROWED = {"f64", "i64", "u64"}


def spread(n, k):
    """Up to k distinct positions spread over n elements (all k when n >= k)."""
    if n >= k:
        return [j * (n // k) for j in range(k)]
    return list(range(n))


def values(dtype, shape, salt=0, special=False):
    """Distinct-as-possible values, so that a wrong source index shows up; `special` adds
    NaN payloads, -0.0, infinities, subnormals and integer extremes."""
    n = int(np.prod(shape, dtype=np.int64))
    k = np.arange(n, dtype=np.int64) + salt
    if dtype == "str":
        out = np.array([WORDS[i % len(WORDS)] + (str(i // len(WORDS)) if i >= len(WORDS) else "")
                        for i in k.tolist()], dtype=str)
        if out.size == 0:
            out = np.array([], dtype="<U1")
        return out.reshape(shape)
    t = NP[dtype]
    if dtype == "bool":
        out = ((k * 7 + 3) % 3 == 0)
    elif dtype[0] in "iu":
        info = np.iinfo(t)
        span = int(info.max) - int(info.min) + 1
        step = 2654435761 % span or 1
        vals = [(int(info.min) + (int(i) * step + 1) % span) for i in k]
        if special:
            for pos, v in zip(spread(n, 4), [int(info.min), int(info.max), 0, int(info.max) - 1]):
                vals[pos] = v
        out = np.array(vals, dtype=t)
    else:
        out = ((k % 97) * 1.25 - 37.5).astype(t)
        if special and n:
            bits = {"f16": (np.uint16, [0x7E01, 0x8000, 0x7C00, 0xFC00, 0x0001, 0xFE7F]),
                    "f32": (np.uint32, [0x7FC00123, 0x80000000, 0x7F800000, 0xFF800000,
                                        0x00000001, 0xFFBFFFFF]),
                    "f64": (np.uint64, [0x7FF8000000000123, 0x8000000000000000,
                                        0x7FF0000000000000, 0xFFF0000000000000,
                                        0x0000000000000001, 0x7FEFFFFFFFFFFFFF])}[dtype]
            view = out.view(bits[0])
            for pos, b in zip(spread(n, len(bits[1])), bits[1]):
                view[pos] = b
    return out.reshape(shape)


# ---------------------------------------------------------------------------------------
# OpenVINO in a worker process
# ---------------------------------------------------------------------------------------

OV_TYPES = {"bool": ("boolean", "BOOL"), "i8": ("i8", "I8"), "i16": ("i16", "I16"),
            "i32": ("i32", "I32"), "i64": ("i64", "I64"), "u8": ("u8", "U8"),
            "u16": ("u16", "U16"), "u32": ("u32", "U32"), "u64": ("u64", "U64"),
            "f16": ("f16", "FP16"), "f32": ("f32", "FP32"), "f64": ("f64", "FP64")}


def dtype_name(arr):
    if arr.dtype.kind == "U":
        return "str"
    for k, v in NP.items():
        if arr.dtype == np.dtype(v):
            return k
    raise ValueError(arr.dtype)


def pdpd_ir(opset, data_shape, dtype, target_len, axis):
    """IR text of Parameter -> Broadcast(pdpd, axis) -> Result. opset1 needs a third input
    (ignored for PDPD); the weights are the target (i64) then that dummy axes value."""
    et, prec = OV_TYPES[dtype]
    dims = "".join(f"<dim>{d}</dim>" for d in data_shape)
    shape_attr = ",".join(str(d) for d in data_shape)
    if opset == "opset3":
        attrs = f'mode="pdpd" mode.mode.axis="{axis}"'
        extra_layer, extra_port, extra_edge = "", "", ""
    else:
        attrs = f'mode="pdpd" mode.auto_broadcast_axis="{axis}"'
        extra_layer = (f'<layer id="4" name="a" type="Const" version="opset1"><data element_type="i64" '
                       f'shape="1" offset="{8 * target_len}" size="8"/><output><port id="0" '
                       f'precision="I64"><dim>1</dim></port></output></layer>')
        extra_port = '<port id="3" precision="I64"><dim>1</dim></port>'
        extra_edge = '<edge from-layer="4" from-port="0" to-layer="2" to-port="3"/>'
    return f'''<?xml version="1.0"?>
<net name="pdpd" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{shape_attr}" element_type="{et}"/><output><port id="0" precision="{prec}">{dims}</port></output></layer>
<layer id="1" name="t" type="Const" version="opset1"><data element_type="i64" shape="{target_len}" offset="0" size="{8 * target_len}"/><output><port id="0" precision="I64"><dim>{target_len}</dim></port></output></layer>
{extra_layer}
<layer id="2" name="b" type="Broadcast" version="{opset}"><data {attrs}/><input><port id="0" precision="{prec}">{dims}</port><port id="1" precision="I64"><dim>{target_len}</dim></port>{extra_port}</input><output><port id="2" precision="{prec}"/></output></layer>
<layer id="3" name="r" type="Result" version="opset1"><input><port id="0" precision="{prec}"/></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="2" to-port="0"/><edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>{extra_edge}<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/></edges></net>'''


def ov_worker():
    """Serves requests on the original stdout/stdin; OpenVINO's own prints go to stderr."""
    msg_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    msg_in = sys.stdin.buffer
    import openvino as ov
    import openvino.opset3 as o3

    core = ov.Core()
    while True:
        head = msg_in.read(8)
        if len(head) < 8:
            return
        req = pickle.loads(msg_in.read(struct.unpack("<Q", head)[0]))
        try:
            kind, data, target = req["kind"], req["data"], req["target"]
            et = ov.Type.boolean if data.dtype == np.bool_ else ov.Type(data.dtype)
            if kind == "build-opset3":
                p = o3.parameter(list(data.shape), et)
                t = o3.constant(np.array(target, dtype=np.int64))
                if req["mode"] == "explicit":
                    a = o3.constant(np.array(req["axes"], dtype=np.int64))
                    node = o3.broadcast(p, t, a, broadcast_spec="EXPLICIT")
                else:
                    node = o3.broadcast(p, t, broadcast_spec=req["mode"].upper())
                model = ov.Model([node], [p])
            else:
                weights = np.array(list(target) + [0], dtype=np.int64)
                xml = pdpd_ir(kind.removeprefix("ir-"), data.shape, dtype_name(data), len(target), req["axis"])
                model = core.read_model(xml, ov.Tensor(weights.view(np.uint8)))
            compiled = core.compile_model(model, "CPU")
            out = np.array(compiled(data)[0])
            resp = ("ok", out)
        except Exception as e:  # noqa: BLE001 - any refusal is the answer
            lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
            resp = ("rejected", lines[-1][:240] if lines else type(e).__name__)
        blob = pickle.dumps(resp)
        msg_out.write(struct.pack("<Q", len(blob)) + blob)
        msg_out.flush()


class OpenVino:
    """Runs OpenVINO calls in a worker process; a crash or a hang is an answer, not the end."""

    TIMEOUT_S = 30

    def __init__(self):
        self.proc = None
        self.calls = 0
        self.crashes = 0

    def _start(self):
        self.proc = subprocess.Popen([sys.executable, __file__, "--ov-worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)

    def call(self, **req):
        self.calls += 1
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        blob = pickle.dumps(req)
        try:
            self.proc.stdin.write(struct.pack("<Q", len(blob)) + blob)
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], self.TIMEOUT_S)
            if not ready:
                self.proc.kill()
                self.proc.wait()
                self.proc = None
                self.crashes += 1
                return ("crashed", f"hung, killed after {self.TIMEOUT_S} s")
            head = self.proc.stdout.read(8)
            if len(head) == 8:
                return pickle.loads(self.proc.stdout.read(struct.unpack("<Q", head)[0]))
        except BrokenPipeError:
            pass
        code = self.proc.wait()
        self.proc = None
        self.crashes += 1
        name = signal.Signals(-code).name if code < 0 else f"exit code {code}"
        return ("crashed", name)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


def ort_expand(data, target):
    """ONNX Runtime Expand-13 on CPU; strings as ONNX STRING tensors."""
    import onnxruntime as ort

    ort.set_default_logger_severity(4)
    from onnx import TensorProto, helper, numpy_helper

    is_str = data.dtype.kind == "U"
    et = TensorProto.STRING if is_str else helper.np_dtype_to_tensor_dtype(data.dtype)
    graph = helper.make_graph(
        [helper.make_node("Expand", ["x", "s"], ["y"])], "expand",
        [helper.make_tensor_value_info("x", et, list(data.shape))],
        [helper.make_tensor_value_info("y", et, None)],
        [numpy_helper.from_array(np.array(target, dtype=np.int64), "s")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    try:
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        feed = np.array(data, dtype=object) if is_str else np.array(data)
        out = sess.run(None, {"x": feed})[0]
    except Exception as e:  # noqa: BLE001
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        return ("rejected", lines[-1][:240] if lines else type(e).__name__)
    if is_str:
        out = np.array(out.tolist(), dtype=str).reshape(out.shape)
    return ("ok", out)


# ---------------------------------------------------------------------------------------
# Writing cases
# ---------------------------------------------------------------------------------------


def same_bits(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "U":
        return a.tolist() == b.tolist()
    return c_order(a).tobytes() == c_order(b).tobytes()


def shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


class Suite:
    def __init__(self, ov):
        self.ov = ov
        self.names = set()
        self.count = {}
        self.disagreements = []

    def add(self, group, name, mode, datas, *, target=None, axes_mapping=None, axis=None,
            broadcast_axes=None, source, note=None, layouts=None, oracle=None,
            expect_error=None):
        """Writes one case. `oracle` names an outside runtime to ask ("openvino", "pdpd-ir",
        "ort"); the expected output is the rule's (numpy) and must match the oracle's,
        except for the known faults, which are recorded."""
        key = f"{group}/{name}"
        assert key not in self.names, key
        self.names.add(key)
        notes = [note] if note else []
        try:
            outs = expected_of(mode, datas, target, axes_mapping, axis, broadcast_axes)
            rejected = None
        except Rejected as r:
            outs, rejected = None, str(r)
        if expect_error is not None:
            assert (rejected is not None) == expect_error, (key, rejected)
        src = [source]
        runtime = None
        if oracle == "openvino":
            runtime = self.ask_openvino(mode, datas[0], target, axes_mapping)
        elif oracle == "pdpd-ir":
            runtime = self.ask_pdpd(datas[0], target, -1 if axis is None else axis)
        elif oracle == "ort":
            runtime = [("ONNX Runtime 1.31 Expand", ort_expand(datas[0], target))]
        for who, (status, got) in runtime or []:
            verdict = self.judge(who, status, got, outs, rejected, datas[0])
            if verdict == "agrees":
                src.append(f"{who} agrees")
            else:
                notes.append(f"{who}: {verdict}")
                if "known fault" not in verdict:
                    self.disagreements.append(f"{key}: {who}: {verdict}")

        folder = CASES / group / name
        folder.mkdir(parents=True)
        case = {"name": name}
        case["mode"] = mode
        if target is not None:
            case["target_shape"] = list(target)
        if axes_mapping is not None:
            case["axes_mapping"] = list(axes_mapping)
        if axis is not None:
            case["axis"] = axis
        if broadcast_axes is not None:
            case["broadcast_axes"] = list(broadcast_axes)
        inputs = []
        for i, x in enumerate(datas):
            fname = f"in{i}.npy"
            layout = (layouts or {}).get(i)
            np.save(folder / fname, stored(x, layout), allow_pickle=False)
            inputs.append(fname)
        case["inputs"] = inputs
        if rejected is not None:
            case["error"] = True
            notes.insert(0, f"rejected by the rule: {rejected}")
        else:
            case["outputs"] = []
            for i, y in enumerate(outs):
                fname = f"out{i}.npy"
                np.save(folder / fname, c_order(y), allow_pickle=False)
                case["outputs"].append(fname)
        case["source"] = "; ".join(src)
        if notes:
            case["note"] = " | ".join(notes)
        (folder / "case.json").write_text(json.dumps(case, ensure_ascii=False) + "\n",
                                          encoding="utf-8")
        self.count[group] = self.count.get(group, 0) + 1

    def ask_openvino(self, mode, data, target, axes):
        if dtype_name(data) == "str":
            # OpenVINO's CPU plugin has no string Broadcast.
            return []
        return [("OpenVINO 2026.4 CPU opset3",
                 self.ov.call(kind="build-opset3", mode=mode, data=c_order(data),
                              target=list(target), axes=list(axes or [])))]

    def ask_pdpd(self, data, target, axis):
        if dtype_name(data) == "str":
            return []
        answers = []
        for opset in ("opset3", "opset1"):
            answers.append((f"OpenVINO 2026.4 CPU {opset} PDPD (IR)",
                            self.ov.call(kind=f"ir-{opset}", data=c_order(data),
                                         target=list(target), axis=axis)))
        return answers

    @staticmethod
    def judge(who, status, got, outs, rejected, data=None):
        if status == "crashed":
            if data is not None and data.size == 0 and "OpenVINO" in who:
                return f"known fault: crashed on zero-size data ({got})"
            return f"crashed ({got})"
        if status == "rejected":
            if rejected is not None:
                return "agrees"
            if "empty Constant" in got and "OpenVINO" in who:
                return f"known fault: cannot take an empty target_shape ({got})"
            return f"rejects what the rule accepts ({got})"
        # status ok
        if rejected is not None:
            return f"accepts what the rule rejects, output shape {shape_str(got.shape)}"
        want = outs[0]
        if same_bits(got, want):
            return "agrees"
        if got.shape != want.shape:
            return f"output shape {shape_str(got.shape)} differs from the rule's {shape_str(want.shape)}"
        kind = dtype_name(want)
        if kind in OV_NARROWED and "OpenVINO" in who:
            return (f"known fault: {kind} is computed in 32 bits on CPU, values differ; "
                    f"shape agrees, values from numpy")
        return "values differ from numpy's"


def stored(x, layout):
    """The array as the input file holds it: C-order (default), Fortran-order, big-endian."""
    if layout is None:
        return c_order(x)
    y = x
    if "be" in layout:
        y = y.astype(y.dtype.newbyteorder(">"))
    if "f" in layout.split("+"):
        y = np.asfortranarray(y)
        assert y.ndim < 2 or not y.flags.c_contiguous or sum(d > 1 for d in y.shape) < 2
    return y


# ---------------------------------------------------------------------------------------
# The groups
# ---------------------------------------------------------------------------------------

A = (2, 3, 4, 5)


def spec_group(s):
    g = "spec"
    ovr = "OpenVINO broadcast-rules.rst"
    # Numpy rules for element-wise ops: two operands, both may stretch: N-ary (multi).
    numpy_examples = [((), ()), ((2, 3), (1,)), ((3,), (2, 3)), ((2, 3, 5), ()),
                      ((2, 1, 5), (1, 4, 5)), ((6, 5), (2, 1, 5)), ((2, 1, 5), (4, 1)),
                      ((3, 2, 1, 4), (5, 4)), ((1, 5, 3), (5, 2, 1, 3)),
                      ((3,), (2,)), ((3, 1, 5), (4, 4, 5))]
    dts = ["f32", "i32", "u8", "f16", "i64", "bool", "str", "i8", "u16", "f64", "u32"]
    for i, ((a, b), dt) in enumerate(zip(numpy_examples, dts)):
        s.add(g, f"ov_rules_numpy_{i + 1}_{'x'.join(map(str, a)) or 'scalar'}_with_"
                 f"{'x'.join(map(str, b)) or 'scalar'}", "multi",
              [values(dt, a), values(dt, b, salt=50)],
              source=f"{ovr}, Numpy examples, #{i + 1}", expect_error=i >= 9)
    pdpd_examples = [((3, 4), 1), ((3, 1), 1), ((4, 5), -1), ((4, 5), 2), ((1, 3), 0),
                     ((), -1), ((5,), -1), ((5,), 3)]
    for i, ((b, axis), dt) in enumerate(zip(pdpd_examples, DTYPES[1:])):
        s.add(g, f"ov_rules_pdpd_{i + 1}_{'x'.join(map(str, b)) or 'scalar'}_axis_{axis}".replace("-", "m"),
              "pdpd", [values(dt, b)], target=A, axis=axis,
              source=f"{ovr}, PDPD examples (A = (2,3,4,5), B = data)", oracle="pdpd-ir",
              expect_error=False)
    s.add(g, "ov_rules_pdpd_only_b_to_a", "pdpd", [values("f32", (7, 1, 5))],
          target=(8, 1, 6, 1), axis=1, oracle="pdpd-ir", expect_error=True,
          source=f"{ovr}, PDPD examples: A (8,1,6,1), B (7,1,5), axis 1 is an error")
    bidi_examples = [((5,), (1,)), ((2, 3), (3,)), ((3, 1), (3, 4)), ((3, 4), ()),
                     ((3, 1), (2, 1, 6))]
    for i, ((a, b), dt) in enumerate(zip(bidi_examples, ["f32", "i16", "u8", "f16", "i32"])):
        s.add(g, f"ov_rules_bidirectional_{i + 1}", "bidirectional", [values(dt, a)], target=b,
              source=f"{ovr}, Bidirectional examples, #{i + 1}", oracle="openvino",
              expect_error=False)
    b3 = "OpenVINO broadcast-3.rst (and broadcast-1.rst for the first three), IR example"
    s.add(g, "broadcast3_ir_1_numpy_16x1x1_to_nchw", "numpy", [values("u8", (16, 1, 1))],
          target=(1, 16, 50, 50), source=f"{b3} 1", oracle="openvino", expect_error=False)
    s.add(g, "broadcast3_ir_2_explicit_c_to_nchw", "explicit", [values("i8", (16,))],
          target=(1, 16, 50, 50), axes_mapping=[1], source=f"{b3} 2", oracle="openvino",
          expect_error=False)
    s.add(g, "broadcast3_ir_3_explicit_hw_to_nhwc", "explicit", [values("f16", (50, 50))],
          target=(1, 50, 50, 16), axes_mapping=[1, 2], source=f"{b3} 3", oracle="openvino",
          expect_error=False)
    s.add(g, "broadcast3_ir_4_bidirectional_16x1x1", "bidirectional", [values("f32", (16, 1, 1))],
          target=(1, 1, 50, 50), source=f"{b3} 4", oracle="openvino", expect_error=False)
    ng = "nGraph Broadcast (doc/sphinx/source/ops/broadcast.rst)"
    abc = np.array([1.5, -2.0, 3.25], dtype=np.float32)
    s.add(g, "ngraph_abc_to_2x3_axes_0", "axes", [abc], target=(2, 3), broadcast_axes=[0],
          source=f"{ng}: Broadcast([a,b,c], Shape{{2,3}}, AxisSet{{0}})", expect_error=False)
    s.add(g, "ngraph_abc_to_3x2_axes_1", "axes", [abc], target=(3, 2), broadcast_axes=[1],
          source=f"{ng}: Broadcast([a,b,c], Shape{{3,2}}, AxisSet{{1}})", expect_error=False)
    s.add(g, "ngraph_definition_axes_1_3", "axes", [values("i32", (2, 3, 2))],
          target=(2, 4, 3, 5, 2), broadcast_axes=[1, 3],
          source=f"{ng}, mathematical definition: broadcast_axes = {{1,3}}, "
                 "p([d0,d1,d2,d3,d4]) = [d0,d2,d4] (sizes chosen here)", expect_error=False)
    v13 = "nGraph v1/v3 Broadcast doc comment (src/ngraph/op/broadcast.hpp)"
    s.add(g, "ngraph_v1_explicit_3x4_axes_0_2", "explicit", [values("f32", (3, 4))],
          target=(3, 5, 4, 4), axes_mapping=[0, 2],
          source=f"{v13}: Input [3,4], Target [3,5,4,4], axes_mapping [0,2]", oracle="openvino",
          expect_error=False)
    s.add(g, "ngraph_v1_explicit_3x4_axes_0_3", "explicit", [values("i16", (3, 4))],
          target=(3, 5, 4, 4), axes_mapping=[0, 3],
          source=f"{v13}: Input [3,4], Target [3,5,4,4], axes_mapping [0,3]", oracle="openvino",
          expect_error=False)
    sonnx = "SONNX Broadcast spec (onnx/working-groups safety-related-profile)"
    x0 = np.arange(1, 7, dtype=np.float32).reshape(3, 2, 1)
    x1 = np.arange(7, 11, dtype=np.float32)
    s.add(g, "sonnx_running_example", "multi", [x0, x1],
          source=f"{sonnx}: X0 shape (3,2,1) holding 1..6, X1 shape (4) holding 7..10, "
                 "Z0 and Z1 shape (3,2,4)", expect_error=False)
    s.add(g, "sonnx_error_e1", "multi", [x0, values("f32", (3, 4))],
          source=f"{sonnx}: error E1 (a dim neither 1 nor the common size); shapes chosen here",
          expect_error=True)
    onnx_md = "ONNX docs/Broadcasting.md"
    multi_md = [((2, 3, 4, 5), ()), ((2, 3, 4, 5), (5,)), ((4, 5), (2, 3, 4, 5)),
                ((1, 4, 5), (2, 3, 1, 1)), ((3, 4, 5), (2, 1, 1, 1))]
    for i, ((a, b), dt) in enumerate(zip(multi_md, ["i8", "u8", "bool", "f16", "i16"])):
        s.add(g, f"onnx_multidirectional_{i + 1}", "multi", [values(dt, a), values(dt, b, 9)],
              source=f"{onnx_md}, multidirectional example {i + 1}", expect_error=False)
    uni_md = [(), (5,), (2, 1, 1, 5), (1, 3, 1, 5)]
    for i, (b, dt) in enumerate(zip(uni_md, ["u16", "u32", "f32", "i32"])):
        s.add(g, f"onnx_unidirectional_{i + 1}", "numpy", [values(dt, b)], target=A,
              source=f"{onnx_md}, unidirectional example {i + 1} (B to A)", oracle="openvino",
              expect_error=False)


def openvino_group(s):
    g = "openvino"
    src = "OpenVINO 2026.4 CPU opset3 Broadcast, cross-checked with numpy"
    numpy_cfgs = [
        ((), ()), ((), (1,)), ((), (4,)), ((), (2, 3)), ((), (1, 1, 1, 1, 1, 1)),
        ((1,), (2, 1, 3)), ((3,), (3,)), ((3,), (2, 3)), ((1, 3), (4, 3)), ((3, 1), (3, 4)),
        ((2, 1, 3), (2, 4, 3)), ((1, 2, 1), (3, 2, 5)), ((2, 3, 4), (2, 3, 4)),
        ((4, 1, 1), (2, 4, 3, 5)), ((1, 1, 1), (2, 3, 4)), ((2, 1, 3, 1, 2), (2, 2, 3, 2, 2)),
        ((1, 2, 1, 2, 1, 2), (2, 2, 2, 2, 2, 2)), ((3,), (1, 1, 1, 1, 1, 3)),
        ((2, 1, 1, 1, 1, 1), (2, 2, 1, 2, 1, 2)), ((1,), (0,)), ((1, 3), (0, 3)),
        ((0, 3), (0, 3)), ((0, 1), (0, 3)), ((1, 0), (4, 0)), ((2, 1), (2, 0)), ((), (0,)),
        ((), (3, 0, 2)), ((1, 1), (1, 1)), ((5,), (1, 5)), ((2, 2), (3, 2, 2)),
        ((3, 1), (2, 3, 6)), ((1, 4, 1), (2, 1, 1, 4, 4)), ((1, 16, 1, 1), (1, 16, 3, 3)),
    ]
    bidi_cfgs = numpy_cfgs[:20] + [
        ((3,), (1,)), ((2, 3), ()), ((1, 4, 1), (1, 4)), ((3, 1), (2, 1, 6)),
        ((1, 3, 1), (3, 1)), ((1, 1, 1, 1, 1, 1), (1, 3, 1, 1)), ((16, 1, 1), (1, 1, 5, 5)),
        ((1, 3, 1), (3, 1, 3)), ((4, 3, 2), (2, 1)), ((1,), (0,)), ((0,), (1,)),
        ((0, 1), (1, 3)), ((5, 2, 3, 1), (1, 3, 6)), ((2, 1), (2, 4)),
        ((1, 2, 3, 1), (5, 2, 3, 7)), ((4, 1), (2, 1, 4)), ((1, 4, 1), (1, 1, 3)),
        ((4, 1, 1), (1, 1, 2, 2)), ((3,), ()), ((), ()),
    ]
    explicit_cfgs = [
        ((16,), (1, 16, 5, 5), [1]), ((5, 5), (1, 5, 5, 4), [1, 2]), ((3, 1), (2, 3, 1), [1, 2]),
        ((4,), (1, 4, 2, 3), [1]), ((2,), (3, 2, 4), [1]), ((2,), (2, 3), [0]),
        ((2,), (2, 3, 4, 5), [0]), ((4, 5), (2, 3, 4, 5), [2, 3]), ((3, 5), (2, 3, 4, 5), [1, 3]),
        ((2, 4), (2, 3, 4, 5), [0, 2]), ((2, 3, 4), (5, 2, 3, 4), [1, 2, 3]),
        ((2, 3, 4), (2, 5, 3, 4), [0, 2, 3]), ((2, 3, 4), (2, 3, 5, 4), [0, 1, 3]),
        ((3, 1), (2, 3, 3), [1, 2]), ((2, 3, 1, 1), (2, 3, 4, 5), [0, 1, 2, 3]),
        ((), (1, 2), []), ((1,), (3, 1), [1]), ((3,), (3, 4), [0]), ((4,), (3, 4), [1]),
        ((2, 2), (2, 2, 2), [0, 2]), ((2, 2), (2, 2, 2), [0, 1]), ((1,), (3, 4), [1]),
        ((1,), (0, 3), [1]), ((0,), (2, 0), [1]), ((2, 2, 2), (2, 2, 2, 2), [0, 1, 3]),
        ((2, 3), (1, 2, 1, 3, 1, 2), [1, 3]), ((), (), []), ((4,), (4, 2, 4, 1), [2]),
        ((2, 4), (2, 2, 4, 1), [1, 2]), ((2, 1, 3), (2, 5, 3, 2, 1, 1), [0, 1, 2]),
    ]
    k = 0
    for layout_pass in (None, "f"):
        for data, target in numpy_cfgs:
            if layout_pass and sum(d > 1 for d in data) < 2:
                continue
            dt = OV_DTYPES[k % len(OV_DTYPES)]
            k += 1
            tag = "_fortran" if layout_pass else ""
            s.add(g, f"numpy_{shape_name(data)}_to_{shape_name(target)}_{dt}{tag}", "numpy",
                  [values(dt, data, salt=k, special=k % 3 == 0)], target=target, source=src,
                  oracle="openvino", layouts={0: layout_pass} if layout_pass else None)
        for data, target in bidi_cfgs:
            if layout_pass and sum(d > 1 for d in data) < 2:
                continue
            dt = OV_DTYPES[k % len(OV_DTYPES)]
            k += 1
            tag = "_fortran" if layout_pass else ""
            s.add(g, f"bidirectional_{shape_name(data)}_with_{shape_name(target)}_{dt}{tag}",
                  "bidirectional", [values(dt, data, salt=k, special=k % 3 == 0)],
                  target=target, source=src, oracle="openvino",
                  layouts={0: layout_pass} if layout_pass else None)
        for data, target, axes in explicit_cfgs:
            if layout_pass and sum(d > 1 for d in data) < 2:
                continue
            dt = OV_DTYPES[k % len(OV_DTYPES)]
            k += 1
            tag = "_fortran" if layout_pass else ""
            s.add(g, f"explicit_{shape_name(data)}_to_{shape_name(target)}_axes_"
                     f"{'_'.join(map(str, axes)) or 'none'}_{dt}{tag}",
                  "explicit", [values(dt, data, salt=k, special=k % 3 == 0)], target=target,
                  axes_mapping=axes, source=src, oracle="openvino",
                  layouts={0: layout_pass} if layout_pass else None)
    # The value tests of OpenVINO's own suite (op_reference/broadcast.cpp, eval.cpp).
    ref = "OpenVINO op_reference/broadcast.cpp value test"
    s.add(g, "ov_tests_scalar_6_to_4", "numpy", [np.array(6, dtype=np.int8)], target=(4,),
          source=ref, oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_scalar_6_to_2x2x2", "numpy", [np.array(6, dtype=np.uint16)],
          target=(2, 2, 2), source=ref, oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_2x2_to_2x2x2", "numpy", [np.array([[1, 2], [3, 4]], dtype=np.float32)],
          target=(2, 2, 2), source=ref, oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_explicit_vector_colwise", "explicit",
          [np.array([1, 2, 3], dtype=np.int32)], target=(3, 4), axes_mapping=[0],
          source=ref, oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_explicit_vector_rowwise", "explicit",
          [np.array([1, 2, 3, 4], dtype=np.int64)], target=(3, 4), axes_mapping=[1],
          source=ref, oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_explicit_1_to_3x1", "explicit", [np.array([4], dtype=np.uint8)],
          target=(3, 1), axes_mapping=[1], source=ref, oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_explicit_2x2_axes_0_2", "explicit",
          [np.array([[1, 2], [3, 4]], dtype=np.float16)], target=(2, 2, 2), axes_mapping=[0, 2],
          source=ref, oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_explicit_2x2_axes_0_1", "explicit",
          [np.array([[1, 2], [3, 4]], dtype=np.int16)], target=(2, 2, 2), axes_mapping=[0, 1],
          source=ref, oracle="openvino", expect_error=False)
    ev = "OpenVINO core/tests/eval.cpp evaluate_broadcast test"
    s.add(g, "ov_tests_eval_bidirectional_4x1_with_2x1x4", "bidirectional",
          [np.array([[1], [2], [3], [4]], dtype=np.float32)], target=(2, 1, 4), source=ev,
          oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_eval_bidirectional_rank_8_with_1x3x1x1", "bidirectional",
          [np.ones((1,) * 8, dtype=np.float32)], target=(1, 3, 1, 1),
          source=ev + " (target rank smaller than the data's: output [1,1,1,1,1,3,1,1])",
          oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_eval_pdpd_3x1_axis_1", "pdpd", [np.array([[1], [2], [3]], np.float32)],
          target=(2, 3, 6), axis=1, source=ev, oracle="pdpd-ir", expect_error=False)
    s.add(g, "ov_tests_eval_explicit_3x1_axes_1_2", "explicit",
          [np.array([[1], [2], [3]], dtype=np.int32)], target=(2, 3, 1), axes_mapping=[1, 2],
          source=ev, oracle="openvino", expect_error=False)
    s.add(g, "ov_tests_cpu_1_to_0", "numpy", [np.array([7], dtype=np.float32)], target=(0,),
          source="OpenVINO CPU single-layer test [1] -> {0}", oracle="openvino",
          expect_error=False)
    s.add(g, "ov_tests_cpu_rank_10", "numpy", [values("i8", (1, 2, 1, 4, 1, 6, 1, 8, 1, 10))],
          target=(1, 2, 1, 4, 1, 6, 1, 8, 1, 10),
          source="OpenVINO CPU single-layer test: 10-D identity [1,2,1,4,1,6,1,8,1,10]",
          oracle="openvino", expect_error=False)


def shape_name(shape):
    return "x".join(str(d) for d in shape) or "scalar"


def pdpd_group(s):
    g = "pdpd"
    src = "PDPD rule (OpenVINO broadcast-rules.rst) built in numpy"
    cfgs = [
        ((3, 1), (2, 3, 6), 1), ((3, 4), A, 1), ((3, 1), A, 1), ((4, 5), A, -1), ((4, 5), A, 2),
        ((1, 3), A, 0), ((), A, -1), ((5,), A, -1), ((5,), A, 3), ((5, 1), A, 3), ((1, 1), A, 4),
        ((2,), (2, 3), 0), ((3,), (2, 3), -1), ((2, 1, 1), (2, 3, 4), 0), ((1,), (0,), -1),
        ((0,), (0,), 0), ((0, 1), (0, 3), 0), ((), (), -1), ((2, 3), (1, 2, 3, 1, 1, 2), 1),
        ((3, 1, 1, 1), (2, 3), 1), ((2, 3, 4, 5), A, 0), ((2, 3, 4, 5), A, -1),
        ((1, 1, 1), (2, 3), 0), ((4,), (2, 3, 4, 5, 1, 2), 2), ((1, 5), A, 2),
        ((3, 4, 1), A, 1), ((), (3,), 0), ((), (3,), 1), ((2, 1, 4), (2, 3, 4), 0),
    ]
    for i, (data, target, axis) in enumerate(cfgs):
        dt = DTYPES[i % len(DTYPES)]
        layout = "f" if sum(d > 1 for d in data) >= 2 and i % 2 == 0 else None
        s.add(g, f"pdpd_{shape_name(data)}_to_{shape_name(target)}_axis_{axis}_{dt}".replace("-", "m"),
              "pdpd", [values(dt, data, salt=i, special=i % 4 == 1)], target=target, axis=axis,
              source=src, oracle="pdpd-ir", layouts={0: layout} if layout else None,
              expect_error=False)
    # No explicit axis: the default is -1.
    s.add(g, "pdpd_default_axis_is_minus_one", "pdpd", [values("f32", (4, 5))], target=A,
          source=src + "; no \"axis\" key: the default -1", oracle="pdpd-ir", expect_error=False)


def axes_group(s):
    g = "axes"
    src = "nGraph v0 Broadcast rule (broadcast_axes) built in numpy"
    cfgs = [
        ((3,), (2, 3), [0]), ((3,), (3, 2), [1]), ((4,), (2, 3, 4), [1, 0]),
        ((3,), (0, 3), [0]), ((), (2, 3), [0, 1]), ((), (), []), ((2, 3), (2, 3), []),
        ((2, 3, 4), (2, 5, 3, 6, 4), [1, 3]), ((1,), (2, 1), [0]), ((0,), (3, 0), [0]),
        ((2, 2), (2, 3, 2, 1, 1, 4), [1, 3, 4, 5]), ((2, 3), (4, 2, 3), [0]),
        ((2, 3), (2, 3, 4), [2]), ((2, 3), (2, 4, 3), [1]), ((1, 1), (1, 5, 1), [1]),
        ((), (1, 1, 1, 1, 1, 1), [5, 4, 3, 2, 1, 0]), ((3, 2), (3, 2, 0), [2]),
    ]
    for i, (data, target, baxes) in enumerate(cfgs):
        dt = DTYPES[(i + 5) % len(DTYPES)]
        layout = "f" if sum(d > 1 for d in data) >= 2 else None
        s.add(g, f"axes_{shape_name(data)}_to_{shape_name(target)}_new_"
                 f"{'_'.join(map(str, baxes)) or 'none'}_{dt}",
              "axes", [values(dt, data, salt=i, special=i % 3 == 0)], target=target,
              broadcast_axes=baxes, source=src, layouts={0: layout} if layout else None,
              expect_error=False)


def multi_group(s):
    g = "multi"
    src = "numpy np.broadcast_arrays (SONNX / ONNX multidirectional rule)"
    cfgs = [
        [(2, 3)], [()], [(3, 1), (4,)], [(1, 4, 5), (2, 3, 1, 1)], [(0, 1), (1, 3)],
        [(), ()], [(2, 0), (1,)], [(1,), (0,)], [(8, 1, 6, 1), (7, 1, 5), ()],
        [(2, 1, 1), (1, 3, 1), (1, 1, 4)], [(0, 1), (1, 3), (1,)],
        [(1,), (2, 1, 1), (1, 3, 1), (4, 1, 1, 1)],
        [(6,), (5, 6), (4, 1, 6), (3, 1, 1, 6), (2, 1, 1, 1, 6)],
        [(1, 2, 1, 2, 1, 2), (2, 1, 2, 1, 2, 1)], [(2, 2, 2, 2, 2, 2), ()],
        [(3,), (3,), (3,)], [(1, 1, 1), (1, 1)], [(5, 1), (1, 0)],
    ]
    for i, shapes in enumerate(cfgs):
        dt = DTYPES[(i + 2) % len(DTYPES)]
        datas = [values(dt, sh, salt=10 * j, special=i % 3 == 1) for j, sh in enumerate(shapes)]
        layouts = {j: "f" for j, sh in enumerate(shapes) if sum(d > 1 for d in sh) >= 2 and j % 2}
        s.add(g, f"multi_{'_and_'.join(shape_name(sh) for sh in shapes)}_{dt}", "multi", datas,
              source=src, layouts=layouts or None, expect_error=False)
    mixed = [values("f32", (3, 1)), values("i8", (4,)), values("str", (1, 4)),
             values("bool", ())]
    s.add(g, "multi_mixed_dtypes_keep_their_own", "multi", mixed,
          source=src + "; each output keeps its input's dtype (SONNX constraint C1)",
          expect_error=False)
    s.add(g, "multi_big_endian_and_fortran", "multi",
          [values("u32", (2, 3)), values("f64", (4, 1, 3), special=True)],
          layouts={0: "be", 1: "be+f"}, source=src, expect_error=False)


def dtypes_group(s):
    g = "dtypes"
    src = "numpy"
    for i, dt in enumerate(DTYPES):
        oracle = "openvino" if dt != "str" else None
        s.add(g, f"special_values_{dt}_numpy", "numpy", [values(dt, (6, 1), special=True)],
              target=(2, 6, 2), source=src, oracle=oracle, expect_error=False)
        s.add(g, f"special_values_{dt}_bidirectional_fortran", "bidirectional",
              [values(dt, (2, 3), salt=3, special=True)], target=(2, 1, 3),
              layouts={0: "f"}, source=src, oracle=oracle, expect_error=False)
        if dt not in ("bool", "i8", "u8"):
            s.add(g, f"big_endian_{dt}_explicit", "explicit",
                  [values(dt, (3, 2), salt=7, special=True)], target=(3, 2, 2),
                  axes_mapping=[0, 1], layouts={0: "be"}, source=src, oracle=oracle,
                  expect_error=False)
            s.add(g, f"big_endian_fortran_{dt}_pdpd", "pdpd",
                  [values(dt, (2, 3, 1), salt=11, special=True)], target=(2, 3, 2), axis=0,
                  layouts={0: "be+f"}, source=src, oracle="pdpd-ir" if oracle else None,
                  expect_error=False)
        s.add(g, f"scalar_{dt}_to_rank_6", "axes", [values(dt, (), salt=i, special=True)],
              target=(1, 2, 1, 2, 1, 2), broadcast_axes=[0, 1, 2, 3, 4, 5], source=src,
              expect_error=False)
        s.add(g, f"zero_size_{dt}", "numpy", [values(dt, (1, 3))], target=(2, 0, 3), source=src,
              oracle=oracle, expect_error=False)


def onnx_group(s):
    g = "onnx"
    import onnx.backend.test.case.node.expand as expand_cases

    captured = []

    def capture(node, inputs, outputs, name, **_):
        captured.append((name, inputs, outputs))

    expand_cases.expect = capture
    expand_cases.Expand.export_dim_changed()
    expand_cases.Expand.export_dim_unchanged()
    for name, (data, shape), (out,) in captured:
        want = bidirectional_expected(data, list(shape))
        assert same_bits(c_order(want), out), name
        s.add(g, name, "bidirectional", [data], target=[int(v) for v in shape],
              source="onnx 1.23 backend case onnx.backend.test.case.node.expand "
                     f"({name}); its expected output equals numpy's",
              oracle="ort", expect_error=False)
    cfgs = [
        ((3, 1), (2, 1, 6)), ((3, 1), (3, 4)), ((), ()), ((), (2, 2)), ((2, 3), ()),
        ((1,), (0,)), ((0,), (1,)), ((0, 1), (0, 3)), ((1, 3, 1), (3, 1)),
        ((1, 2, 1, 2, 1, 2), (2, 1, 2, 1, 2, 1)), ((4,), (2, 1, 1, 4)), ((2, 1), (1, 1, 1)),
        ((1, 1), (3, 1, 2)),
    ]
    for i, (data, target) in enumerate(cfgs):
        s.add(g, f"expand_strings_{shape_name(data)}_with_{shape_name(target)}",
              "bidirectional", [values("str", data, salt=i)], target=target,
              source="ONNX Runtime 1.31 Expand (string tensor), cross-checked with numpy",
              oracle="ort", layouts={0: "f"} if i == 9 else None, expect_error=False)
        dt = OV_DTYPES[i % len(OV_DTYPES)]
        s.add(g, f"expand_{dt}_{shape_name(data)}_with_{shape_name(target)}", "bidirectional",
              [values(dt, data, salt=i, special=True)], target=target,
              source="ONNX Runtime 1.31 Expand, cross-checked with numpy", oracle="ort",
              layouts={0: "be"} if i % 4 == 3 and dt not in ("bool", "i8", "u8") else None,
              expect_error=False)


def errors_group(s):
    g = "errors"

    def err(name, mode, datas, source, oracle=None, **kw):
        s.add(g, name, mode, datas, source=source, oracle=oracle, expect_error=True, **kw)

    ov = "openvino"
    err("numpy_target_rank_smaller", "numpy", [values("f32", (5, 2, 3, 1))], "numpy rule: "
        "rank(target) >= rank(data) (OpenVINO type_prop test 42)", ov, target=(4, 3, 6))
    err("numpy_dim_mismatch", "numpy", [values("i32", (2, 3))], "numpy rule: dim 1 or equal",
        ov, target=(2, 4))
    err("numpy_dim_mismatch_leading", "numpy", [values("u8", (1, 9, 3, 4))],
        "numpy rule (OpenVINO type_prop test 22, 999 -> 9)", ov, target=(1, 2, 3, 4))
    err("numpy_target_one_does_not_take_data_dim", "numpy", [values("i16", (3,))],
        "numpy rule: only the data stretches", ov, target=(1,))
    err("numpy_issue_33254", "numpy", [values("u8", (52, 1, 33, 1))],
        "numpy rule (OpenVINO issue #33254: [52,1,33,1] to [2,52,33,1])", ov,
        target=(2, 52, 33, 1))
    err("numpy_zero_to_one", "numpy", [values("f16", (0,))], "numpy rule: 0 cannot become 1",
        ov, target=(1,))
    err("numpy_zero_to_three", "numpy", [values("i64", (0, 2))], "numpy rule: 0 cannot become 3",
        ov, target=(3, 2))
    err("numpy_negative_target_dim", "numpy", [values("f32", (3,))],
        "a target dim below 0 is no shape", ov, target=(2, -1))
    err("numpy_negative_target_dim_min_i64", "numpy", [values("i8", ())],
        "a target dim below 0 is no shape", None, target=(-(2 ** 63),))
    err("numpy_shape_overflow", "numpy", [values("u8", ())],
        "a target whose element count exceeds isize::MAX cannot be materialised "
        "(numpy's broadcast_to would only make a view)", None,
        target=(2 ** 40, 2 ** 40))
    err("numpy_target_beyond_u64_is_no_shape", "numpy", [values("u8", (1,))],
        "a target dim beyond usize cannot be materialised", None,
        target=(18446744073709551615,))
    err("bidirectional_incompatible", "bidirectional", [values("f32", (4, 3, 2))],
        "bidirectional rule (OpenVINO type_prop test 32)", ov, target=(8, 6, 4))
    err("bidirectional_incompatible_2", "bidirectional", [values("i32", (1, 1, 2))],
        "bidirectional rule (OpenVINO type_prop test 33)", ov, target=(2, 3))
    err("bidirectional_zero_with_two", "bidirectional", [values("u16", (0,))],
        "bidirectional rule: 0 against 2", ov, target=(2,))
    err("bidirectional_three_with_two", "bidirectional", [values("str", (3,))],
        "bidirectional rule (ONNX Expand)", "ort", target=(2,))
    err("bidirectional_negative_target", "bidirectional", [values("f64", (3,))],
        "a target dim below 0 is no shape", ov, target=(-1,))
    err("bidirectional_expand_negative_target", "bidirectional", [values("f32", (3,))],
        "a target dim below 0 is no shape (ONNX Expand)", "ort", target=(-1, 3))
    err("explicit_axes_length", "explicit", [values("f32", (3, 1))],
        "explicit rule: one axis per data axis (OpenVINO type_prop test 5)", ov,
        target=(2, 3, 1), axes_mapping=[1, 2, 3])
    err("explicit_axes_transposed", "explicit", [values("i8", (3, 1))],
        "explicit rule: no transposes (OpenVINO type_prop test 6)", ov, target=(2, 1, 3),
        axes_mapping=[2, 1])
    err("explicit_axes_duplicate", "explicit", [values("u32", (3, 3))],
        "explicit rule: strictly increasing, so no duplicates (stricter than OpenVINO)", ov,
        target=(2, 3, 3), axes_mapping=[1, 1])
    err("explicit_axis_out_of_range", "explicit", [values("f16", (3, 1))],
        "explicit rule: axes below the target rank (OpenVINO type_prop test 7)", ov,
        target=(2, 3, 1), axes_mapping=[1, 3])
    err("explicit_dim_mismatch", "explicit", [values("i64", (3, 2))],
        "explicit rule: data dim 1 or equal (OpenVINO type_prop test 8)", ov, target=(2, 3, 3),
        axes_mapping=[1, 2])
    err("explicit_negative_axis", "explicit", [values("f32", (3,))],
        "explicit rule: negative axes are not normalised, they are refused", ov, target=(2, 3),
        axes_mapping=[-1])
    err("explicit_scalar_takes_no_axis", "explicit", [values("i32", ())],
        "explicit rule: a scalar has no axis to map (OpenVINO allows one, V8)", ov,
        target=(1, 2), axes_mapping=[0])
    err("explicit_zero_to_one", "explicit", [values("u8", (0,))],
        "explicit rule: data dim 0 cannot become 1", ov, target=(1, 3), axes_mapping=[0])
    err("explicit_missing_axes_for_vector", "explicit", [values("bool", (3,))],
        "explicit rule: one axis per data axis", ov, target=(3,), axes_mapping=[])
    err("explicit_strings_mismatch", "explicit", [values("str", (2,))],
        "explicit rule: data dim 1 or equal", None, target=(3, 3), axes_mapping=[1])
    err("pdpd_axis_minus_two", "pdpd", [values("f32", (5,))],
        "PDPD rule 4: no negative axis but -1", "pdpd-ir", target=A, axis=-2)
    err("pdpd_axis_past_end", "pdpd", [values("i32", (5,))], "PDPD: axis past the target's end",
        "pdpd-ir", target=A, axis=4)
    err("pdpd_runs_past_end", "pdpd", [values("u8", (4, 5))],
        "PDPD rule 2: B must be a contiguous run of A", "pdpd-ir", target=A, axis=3)
    err("pdpd_axis_i64_max", "pdpd", [values("i16", (5,))], "PDPD: axis past the target's end",
        None, target=A, axis=2 ** 63 - 1)
    err("pdpd_axis_beyond_i64", "pdpd", [values("i16", (5,))],
        "PDPD: axis past the target's end", None, target=A, axis=2 ** 64 - 1)
    err("pdpd_axis_i64_min", "pdpd", [values("u16", (5,))], "PDPD rule 4: no negative axis but -1",
        None, target=A, axis=-(2 ** 63))
    err("pdpd_dim_mismatch", "pdpd", [values("f64", (3,))], "PDPD: data dim 1 or equal",
        "pdpd-ir", target=A, axis=2)
    err("pdpd_target_one_does_not_take_data_dim", "pdpd", [values("f32", (3,))],
        "PDPD: only B to A (broadcast-rules.rst); OpenVINO's shape inference lets a target 1 "
        "take the data dim", "pdpd-ir", target=(2, 1), axis=1)
    err("pdpd_minus_one_with_higher_data_rank", "pdpd", [values("i8", (5, 1, 1, 1, 1))],
        "PDPD rule 4: -1 means rank(A) - rank(B), negative here", "pdpd-ir", target=A)
    err("pdpd_minus_one_uses_full_data_rank", "pdpd", [values("i32", (3, 1))],
        "PDPD rule 4 then 5: -1 gives axis 2 (rank with the trailing 1), where 3 meets 4",
        "pdpd-ir", target=A, axis=-1)
    err("pdpd_zero_to_three", "pdpd", [values("f16", (0,))], "PDPD: 0 cannot become 3",
        "pdpd-ir", target=(3,), axis=0)
    err("pdpd_zero_to_one", "pdpd", [values("u32", (0,))],
        "PDPD: only B to A, a target 1 does not take the data's 0", "pdpd-ir", target=(1,),
        axis=0)
    err("pdpd_negative_target", "pdpd", [values("str", (3,))], "a target dim below 0 is no shape",
        None, target=(3, -3), axis=0)
    err("axes_duplicate", "axes", [values("f32", (3,))], "nGraph v0: broadcast_axes is a set",
        None, target=(2, 2, 3), broadcast_axes=[0, 0])
    err("axes_out_of_range", "axes", [values("i64", (3,))],
        "nGraph v0 check 1: axis below the output rank", None, target=(2, 3), broadcast_axes=[2])
    err("axes_shape_mismatch", "axes", [values("u16", (3,))],
        "nGraph v0 check 2: target without the axes equals the data shape", None,
        target=(2, 4), broadcast_axes=[0])
    err("axes_no_stretching", "axes", [values("f16", (1,))],
        "nGraph v0 check 2: exact match, no 1 -> N", None, target=(2, 3), broadcast_axes=[0])
    err("axes_negative", "axes", [values("bool", (3,))], "axes are never negative", None,
        target=(2, 3), broadcast_axes=[-2])
    err("axes_too_few_new_axes", "axes", [values("str", (2, 3))],
        "nGraph v0 check 2: target without the axes equals the data shape", None,
        target=(2, 3, 4), broadcast_axes=[0, 1])
    err("multi_incompatible", "multi", [values("f32", (3,)), values("f32", (2,))],
        "numpy rule for element-wise ops (OpenVINO broadcast-rules.rst)", None)
    err("multi_incompatible_leading", "multi", [values("i32", (3, 1, 5)), values("i32", (4, 4, 5))],
        "numpy rule for element-wise ops (OpenVINO broadcast-rules.rst)", None)
    err("multi_zero_with_two", "multi", [values("u8", (0,)), values("u8", (2,))],
        "numpy rule: 0 against 2", None)
    err("multi_third_input_clashes", "multi",
        [values("str", (2, 3)), values("str", (3,)), values("str", (4,))],
        "numpy rule: every input against the common shape", None)
    err("numpy_strings_mismatch", "numpy", [values("str", (2, 2))], "numpy rule: dim 1 or equal",
        None, target=(2, 3))
    err("numpy_data_to_scalar_target", "numpy", [values("bool", (1,))],
        "numpy rule: rank(target) >= rank(data), even for a size-1 data", ov, target=())
    err("bidirectional_rank_6_clash", "bidirectional", [values("u64", (1, 2, 1, 2, 1, 2))],
        "bidirectional rule at a middle axis", ov, target=(2, 3, 1, 2))
    err("explicit_axis_i64_max", "explicit", [values("f64", (3,))],
        "explicit rule: axes below the target rank", None, target=(3,), axes_mapping=[2 ** 63 - 1])
    err("explicit_zero_size_mismatch", "explicit", [values("i16", (0, 2))],
        "explicit rule: data dim 2 against 3 (the other axis is empty)", ov, target=(0, 3),
        axes_mapping=[0, 1])
    err("pdpd_u64_mismatch_mid_target", "pdpd", [values("u64", (2, 3))],
        "PDPD: data dim 1 or equal", "pdpd-ir", target=(2, 2, 4), axis=1)
    err("axes_axis_beyond_u64", "axes", [values("u8", (3,))], "axes are below the output rank",
        None, target=(2, 3), broadcast_axes=[2 ** 64 - 1])
    err("axes_zero_size_mismatch", "axes", [values("f32", (0,))],
        "nGraph v0 check 2: exact match, 0 is not 2", None, target=(2, 2), broadcast_axes=[0])
    err("multi_mixed_dtypes_clash", "multi", [values("f16", (2, 1)), values("i8", (3, 4))],
        "numpy rule: 2 against 3, whatever the dtypes", None)
    err("multi_rank_6_clash", "multi",
        [values("bool", (2, 1, 1, 1, 1, 2)), values("bool", (1, 1, 1, 1, 3, 3))],
        "numpy rule: 2 against 3 on the last axis", None)
    err("multi_no_inputs", "multi", [], "SONNX Broadcast(X0..XL) has L >= 0: at least one input",
        None)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--ov-worker":
        ov_worker()
        return
    if CASES.exists():
        shutil.rmtree(CASES)
    ov = OpenVino()
    suite = Suite(ov)
    try:
        spec_group(suite)
        openvino_group(suite)
        pdpd_group(suite)
        axes_group(suite)
        multi_group(suite)
        dtypes_group(suite)
        onnx_group(suite)
        errors_group(suite)
    finally:
        ov.close()
    total = sum(suite.count.values())
    for group, n in sorted(suite.count.items()):
        print(f"{group}: {n} cases")
    print(f"total: {total} cases; OpenVINO calls: {ov.calls}, crashes survived: {ov.crashes}")
    if suite.disagreements:
        print("outside runtimes disagreeing with the rule (recorded in each case's note):")
        for d in suite.disagreements:
            print("  " + d)


if __name__ == "__main__":
    main()
