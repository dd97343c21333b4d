#!/usr/bin/env python3
"""Generates the IR conformance cases of bcast from OpenVINO itself.

    python3 conformance/ir/generate.py            # rewrites conformance/ir/* and conformance/ir_bad/*
    python3 conformance/ir/generate.py --only NAME

Requirements: conformance/ir/requirements.txt (OpenVINO 2026.4.1 from PyPI, numpy).

Good cases, conformance/ir/<name>/:
  model.xml, model.bin   saved by openvino.save_model (a few patched, as case.json says)
  inputs/<Parameter>.npy the inputs
  expected/<Result>.npy  OpenVINO's outputs (CPU plugin), or numpy's where OpenVINO is lossy
                         or fails, as case.json says per output
  case.json              how the case was made and what OpenVINO did

Every expected output is checked two ways: OpenVINO's output is compared with a numpy
reference written from the mode's rule (below, independent of bcast). They must be bit-equal,
or OpenVINO's must equal the numpy reference passed through a known OpenVINO CPU fault (f64
computed in f32, i64/u64 computed in i32, u32 constants saturated to i32, subnormal f32
constants flushed), or OpenVINO must fail in a way the case expects
(SIGFPE on zero-size data, a crash on an empty target, no string support on CPU). Anything
else stops the generator.

bf16 has no numpy dtype: bf16 tensors are stored as uint16 .npy files of their bit patterns.

Bad cases, conformance/ir_bad/<name>/: a model mutated from a good one (or hand-written),
maybe inputs/, error.txt (a substring bcast's error must contain) and case.json (what was
changed and what OpenVINO does with it, so that a disagreement is on record).

Each OpenVINO compile/infer runs in a subprocess, so that its crashes are survived. Models
are compiled for the CPU with INFERENCE_PRECISION_HINT=f32: on a CPU with bf16 support
OpenVINO otherwise computes f32 (constant) data in bf16.
"""

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

HERE = Path(__file__).resolve().parent
BAD_DIR = HERE.parent / "ir_bad"


# ----------------------------------------------------------------------------------------
# The numpy references: each mode's rule, written from the OpenVINO spec, not from bcast.
# ----------------------------------------------------------------------------------------

def ref_numpy(x, target):
    return np.broadcast_to(x, tuple(target)).copy()


def ref_bidirectional(x, target):
    return np.broadcast_to(x, np.broadcast_shapes(x.shape, tuple(target))).copy()


def ref_explicit(x, target, axes):
    shape = [1] * len(target)
    for i, a in enumerate(axes):
        shape[a] = x.shape[i]
    return np.broadcast_to(x.reshape(shape), tuple(target)).copy()


def ref_pdpd(x, target, axis):
    dims = list(x.shape)
    start = len(target) - len(dims) if axis == -1 else axis
    while dims and dims[-1] == 1:
        dims.pop()
    shape = [1] * len(target)
    shape[start:start + len(dims)] = dims
    assert len(shape) == len(target)
    return np.broadcast_to(x.reshape(shape), tuple(target)).copy()


# ----------------------------------------------------------------------------------------
# Running OpenVINO in a subprocess.
# ----------------------------------------------------------------------------------------

def openvino_child(case_dir: Path, out_dir: Path) -> None:
    """Reads, compiles and runs case_dir/model.xml on case_dir/inputs; writes out_dir."""
    import openvino as ov
    core = ov.Core()
    model = core.read_model(str(case_dir / "model.xml"))
    # On a CPU with bf16 support (avx512_bf16, AMX) OpenVINO computes f32 in bf16 by default;
    # the IR means f32.
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    for i, p in enumerate(model.get_parameters()):
        arr = np.load(case_dir / "inputs" / f"{p.get_friendly_name()}.npy")
        if p.get_element_type() == ov.Type.bf16:
            t = ov.Tensor(ov.Type.bf16, list(arr.shape))
            t.data[...] = arr.view(np.float16)  # the bit patterns, as OpenVINO exposes bf16
        else:
            t = ov.Tensor(c_order(arr))
        request.set_input_tensor(i, t)
    request.infer()
    for i, r in enumerate(model.get_results()):
        t = request.get_output_tensor(i)
        if t.element_type == ov.Type.bf16:
            arr = t.data.view(np.uint16).copy()
        elif t.element_type == ov.Type.string:
            arr = np.array(t.str_data)
        else:
            arr = t.data.copy()
        # Written one by one and flushed: a crash after the run still leaves what was computed.
        np.save(out_dir / f"{r.get_friendly_name()}.npy", arr)
    print("ok", flush=True)


@dataclass
class OvOutcome:
    ok: bool
    outputs: dict
    failure: str = ""


def run_openvino(case_dir: Path) -> OvOutcome:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [sys.executable, __file__, "--openvino-child", str(case_dir), tmp],
            capture_output=True, text=True, timeout=300)
        outputs = {p.stem: np.load(p) for p in Path(tmp).glob("*.npy")}
    if proc.returncode == 0:
        return OvOutcome(True, outputs)
    if proc.returncode < 0:
        failure = f"killed by {signal.Signals(-proc.returncode).name}"
    else:
        lines = [l.strip() for l in proc.stderr.splitlines() if l.strip()]
        # OpenVINO's messages end with the check that failed; keep the informative lines.
        keep = [l for l in lines if not l.startswith(("File ", "Traceback", "^", "~"))]
        failure = "error: " + " | ".join(keep[-3:])
    tail = [l for l in proc.stderr.splitlines() if l.strip()][-1:] if proc.returncode < 0 else []
    if tail:
        failure += f" (last message: {tail[0].strip()})"
    return OvOutcome(False, outputs, failure)


# ----------------------------------------------------------------------------------------
# Known OpenVINO CPU faults that make its output differ from the exact one.
# ----------------------------------------------------------------------------------------

def lossy_variants(ref: np.ndarray):
    """(name, what OpenVINO's CPU plugin gives) for the element types it computes lossily."""
    f32max = float(np.finfo(np.float32).max)
    i32 = np.iinfo(np.int32)
    if ref.dtype == np.float32:
        bits = ref.view(np.uint32)
        flushed = np.where((bits & 0x7F800000) == 0, np.uint32(0), bits).view(np.float32)
        yield "f32 constant with a zero exponent (subnormal, -0.0) replaced by +0.0", flushed
    if ref.dtype == np.float64:
        with np.errstate(over="ignore"):
            yield "f64 computed in f32", ref.astype(np.float32).astype(np.float64)
        yield ("f64 computed in f32, converted with saturation (infinities become the f32 maximum)",
               np.clip(ref, -f32max, f32max).astype(np.float32).astype(np.float64))
    if ref.dtype == np.int64:
        yield "i64 computed in i32 (wrapped)", ref.astype(np.int32).astype(np.int64)
        yield "i64 computed in i32, converted with saturation", np.clip(ref, i32.min, i32.max).astype(np.int64)
    if ref.dtype == np.uint32:
        yield "u32 constant computed in i32, converted with saturation", np.minimum(ref, np.uint32(i32.max))
    if ref.dtype == np.uint64:
        yield "u64 computed in i32 (wrapped)", ref.astype(np.int32).astype(np.uint64)
        yield "u64 computed in i32, converted with saturation", np.minimum(ref, np.uint64(i32.max))
        yield "u64 computed in u32 (wrapped)", ref.astype(np.uint32).astype(np.uint64)


def c_order(arr) -> np.ndarray:
    """A C-ordered copy; unlike np.ascontiguousarray it keeps rank 0."""
    return np.array(arr, order="C", copy=True)


def bit_equal(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "U":
        return bool(np.array_equal(a, b))
    return a.tobytes() == b.tobytes()


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal values, NaN equal to NaN (the NaN payload of a lossy conversion is OpenVINO's)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


# ----------------------------------------------------------------------------------------
# Building models.
# ----------------------------------------------------------------------------------------

def ov_modules():
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset3 as o3
    return ov, o1, o3


def named(node, name):
    node.set_friendly_name(name)
    return node


def param(name, shape, et):
    ov, o1, _ = ov_modules()
    ps = shape if isinstance(shape, ov.PartialShape) else ov.PartialShape(list(shape))
    return named(o1.parameter(ps, et, name=name), name)


def const(name, arr):
    ov, _, _ = ov_modules()
    return named(ov.op.Constant(ov.Tensor(c_order(arr))), name)


def result(name, node):
    _, o1, _ = ov_modules()
    return named(o1.result(node), name)


def save(model, case_dir: Path):
    ov, _, _ = ov_modules()
    # Nodes OpenVINO makes itself (the unused third input of Broadcast-1) are named from a
    # process-wide counter; name them by position so that the files do not change.
    auto = [op for op in model.get_ordered_ops() if re.fullmatch(r"[A-Za-z]+_\d+", op.get_friendly_name())]
    for k, op in enumerate(auto):
        op.set_friendly_name(f"{op.get_type_name().lower()}_{k}")
    ov.save_model(model, str(case_dir / "model.xml"), compress_to_fp16=False)


def replace_once(text: str, old: str, new: str) -> str:
    count = text.count(old)
    if count != 1:
        raise SystemExit(f"patch: expected exactly one '{old}', found {count}")
    return text.replace(old, new)


def replace_n(text: str, old: str, new: str, n: int) -> str:
    count = text.count(old)
    if count != n:
        raise SystemExit(f"patch: expected {n} of '{old}', found {count}")
    return text.replace(old, new)


def retype_data(text: str, old: list, new: list) -> str:
    """Gives Parameter x (and the Broadcast input it feeds) another static shape."""
    dims = lambda ds: "".join(f"\n\t\t\t\t\t<dim>{d}</dim>" for d in ds)
    text = replace_once(text, f'<data shape="{",".join(map(str, old))}" element_type=',
                        f'<data shape="{",".join(map(str, new))}" element_type=')
    text = replace_once(text, f'<port id="0" precision="FP32" names="x">{dims(old)}',
                        f'<port id="0" precision="FP32" names="x">{dims(new)}')
    # The Broadcast's data input, the first input port in the file.
    at = text.index("<input>")
    head, tail = text[:at], text[at:]
    return head + replace_n(tail, f'<port id="0" precision="FP32">{dims(old)}',
                            f'<port id="0" precision="FP32">{dims(new)}', 1)


def to_ir_v10(text: str) -> str:
    """IR v10 has no tensor names on ports and no output_names on Results."""
    text = re.sub(r'(<net name="[^"]*" version=)"11"', r'\1"10"', text)
    text = re.sub(r' names="[^"]*"', "", text)
    text = re.sub(r' output_names="[^"]*"', "", text)
    return text


# ----------------------------------------------------------------------------------------
# Good cases.
# ----------------------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    description: str
    build: Callable[[], object]                      # -> ov.Model
    inputs: dict                                     # Parameter name -> np.ndarray
    reference: Callable[[dict], dict]                # inputs -> {Result name: np.ndarray}
    patch: Optional[Callable[[str], str]] = None     # edits model.xml after save_model
    patch_note: str = ""
    openvino_fails: str = ""                         # expected failure substring, if any
    notes: str = ""


CASES: list = []

# target_shape/axes_mapping element types OpenVINO 2026.4 fails to compile ("Buffer over-read").
NARROW_SHAPE_TYPES = {"i8", "u8"}

INT_TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
             "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}


def case(**kw):
    CASES.append(Case(**kw))


def f32(a):
    return np.asarray(a, dtype=np.float32)


def arange(shape, dtype=np.float32, start=1):
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n) + start).astype(dtype).reshape(shape)


def define_cases():
    ov, o1, o3 = ov_modules()
    F32, I64, I32 = ov.Type.f32, ov.Type.i64, ov.Type.i32

    # --- every mode, opset3 -------------------------------------------------------------
    def v3(mode, x_shape, target, axes=None, dtype=F32, axes_dtype=np.int64,
           target_dtype=np.int64):
        def build():
            x = param("x", x_shape, dtype)
            t = const("target_shape", np.array(target, dtype=target_dtype))
            args = [x, t] + ([const("axes_mapping", np.array(axes, dtype=axes_dtype))]
                             if axes is not None else [])
            b = named(o3.broadcast(*args, broadcast_spec=mode), "broadcast")
            return ov.Model([result("y", b)], [x], "broadcast3_" + mode)
        return build

    case(name="v3_numpy", description="Broadcast-3 numpy: [3,1] to [2,3,6] (type_prop test 1)",
         build=v3("numpy", [3, 1], [2, 3, 6]), inputs={"x": arange([3, 1])},
         reference=lambda i: {"y": ref_numpy(i["x"], [2, 3, 6])})
    case(name="v3_explicit", description="Broadcast-3 explicit: [3,2] to [2,3,4,2] on axes [1,3]",
         build=v3("explicit", [3, 2], [2, 3, 4, 2], axes=[1, 3]), inputs={"x": arange([3, 2])},
         reference=lambda i: {"y": ref_explicit(i["x"], [2, 3, 4, 2], [1, 3])})
    case(name="v3_bidirectional", description="Broadcast-3 bidirectional: [3,1] with [2,1,6] gives [2,3,6]",
         build=v3("bidirectional", [3, 1], [2, 1, 6]), inputs={"x": arange([3, 1])},
         reference=lambda i: {"y": ref_bidirectional(i["x"], [2, 1, 6])})
    case(name="v3_bidirectional_target_rank_smaller",
         description="Broadcast-3 bidirectional: [1,4,1] with [1,3] gives [1,4,3]; a target 1 keeps the data dim",
         build=v3("bidirectional", [1, 4, 1], [1, 3]), inputs={"x": arange([1, 4, 1])},
         reference=lambda i: {"y": ref_bidirectional(i["x"], [1, 3])})
    case(name="v3_numpy_scalar_data", description="Broadcast-3 numpy: a scalar to [2,3]",
         build=v3("numpy", [], [2, 3]), inputs={"x": f32(7.5)},
         reference=lambda i: {"y": ref_numpy(i["x"], [2, 3])})
    case(name="v3_pdpd_builder_axis0",
         description="Broadcast-3 pdpd as OpenVINO's Python builder makes it (it writes mode.mode.axis=\"0\"): [2,3,1] to [2,3,6]",
         build=v3("pdpd", [2, 3, 1], [2, 3, 6]), inputs={"x": arange([2, 3, 1])},
         reference=lambda i: {"y": ref_pdpd(i["x"], [2, 3, 6], 0)})
    case(name="v3_pdpd_axis1", description="Broadcast-3 pdpd, axis 1: [3,1] to [2,3,6] (the evaluate test of OpenVINO)",
         build=v3("numpy", [3, 1], [2, 3, 6]), inputs={"x": arange([3, 1])},
         patch=lambda t: replace_once(t, 'mode="numpy"', 'mode="pdpd" mode.mode.axis="1"'),
         patch_note="saved as numpy, then mode set to pdpd with mode.mode.axis=\"1\" (the attribute OpenVINO 2026.4 writes and reads for opset3)",
         reference=lambda i: {"y": ref_pdpd(i["x"], [2, 3, 6], 1)})
    case(name="v3_pdpd_trailing_ones", description="Broadcast-3 pdpd, axis 3: [5,1] to [2,3,4,5]; the trailing 1 is dropped",
         build=v3("numpy", [1, 1], [2, 3, 4, 5]), inputs={"x": arange([5, 1])},
         patch=lambda t: retype_data(
             replace_once(t, 'mode="numpy"', 'mode="pdpd" mode.mode.axis="3"'), [1, 1], [5, 1]),
         patch_note="OpenVINO's builders refuse this shape in numpy mode and write pdpd with axis 0: saved as numpy with data [1,1], then the data made [5,1] and the mode pdpd with mode.mode.axis=\"3\"",
         openvino_fails="Tile with non-positive repeats",
         notes="The broadcast-rules spec ignores trailing 1s of the data in PDPD, and OpenVINO's shape inference accepts this model (output [2,3,4,5]), but its evaluation fails in the Tile reference; the expected output is numpy's, from the spec's rule.",
         reference=lambda i: {"y": ref_pdpd(i["x"], [2, 3, 4, 5], 3)})

    case(name="v3_pdpd_spec_rules_example", description="Broadcast-3 pdpd, axis 1: [3,4] on [2,3,4,5], an example of OpenVINO's broadcast-rules spec; the data ends before the target does",
         build=v3("numpy", [4, 5], [2, 3, 4, 5]), inputs={"x": arange([3, 4])},
         patch=lambda t: retype_data(
             replace_once(t, 'mode="numpy"', 'mode="pdpd" mode.mode.axis="1"'), [4, 5], [3, 4]),
         patch_note="OpenVINO's builders refuse this shape in numpy mode and write pdpd with axis 0: saved as numpy with data [4,5], then the data made [3,4] and the mode pdpd with mode.mode.axis=\"1\"",
         reference=lambda i: {"y": ref_pdpd(i["x"], [2, 3, 4, 5], 1)},
         openvino_fails="Accessing out-of-range dimension",
         notes="The spec's own example; OpenVINO 2026.4's shape inference reads past the end of the data shape when the data ends before the target, and fails. The expected output is numpy's, from the spec's rule.")

    # --- every mode, opset1 -------------------------------------------------------------
    def v1(mode, x_shape, target, axes=None, dtype=F32):
        def build():
            x = param("x", x_shape, dtype)
            t = const("target_shape", np.array(target, dtype=np.int64))
            if axes is not None:
                a = const("axes_mapping", np.array(axes, dtype=np.int64))
                b = o1.broadcast(x, t, a, mode=mode)
            else:
                b = o1.broadcast(x, t, mode=mode)
            b = named(b, "broadcast")
            return ov.Model([result("y", b)], [x], "broadcast1_" + mode)
        return build

    case(name="v1_numpy", description="Broadcast-1 numpy: [3,1] to [2,3,6]; OpenVINO adds a third, unused u8 input",
         build=v1("numpy", [3, 1], [2, 3, 6]), inputs={"x": arange([3, 1])},
         reference=lambda i: {"y": ref_numpy(i["x"], [2, 3, 6])})
    case(name="v1_explicit_written_none", description="Broadcast-1 explicit, which OpenVINO writes as mode=\"none\": [3,1] to [2,3,1] on axes [1,2] (type_prop test 2)",
         build=v1("explicit", [3, 1], [2, 3, 1], axes=[1, 2]), inputs={"x": arange([3, 1])},
         reference=lambda i: {"y": ref_explicit(i["x"], [2, 3, 1], [1, 2])})
    case(name="v1_explicit_rowwise", description="Broadcast-1 explicit: [2,2] to [2,2,2] on axes [0,2] (op_reference test)",
         build=v1("explicit", [2, 2], [2, 2, 2], axes=[0, 2]), inputs={"x": arange([2, 2])},
         reference=lambda i: {"y": ref_explicit(i["x"], [2, 2, 2], [0, 2])})
    case(name="v1_pdpd_axis1", description="Broadcast-1 pdpd, axis 1: [3,1] to [2,3,6]",
         build=v1("numpy", [3, 1], [2, 3, 6]), inputs={"x": arange([3, 1])},
         patch=lambda t: replace_once(t, 'mode="numpy"', 'mode="pdpd" mode.auto_broadcast_axis="1"'),
         patch_note="OpenVINO's opset1 Python builder cannot make pdpd (it gives two inputs, the reader needs three): saved as numpy, then mode set to pdpd with mode.auto_broadcast_axis=\"1\" (the attribute OpenVINO 2026.4 writes and reads for opset1)",
         reference=lambda i: {"y": ref_pdpd(i["x"], [2, 3, 6], 1)})
    case(name="v1_pdpd_axis_minus1", description="Broadcast-1 pdpd, axis -1: [4,5] to [2,3,4,5]",
         build=v1("numpy", [4, 5], [2, 3, 4, 5]), inputs={"x": arange([4, 5])},
         patch=lambda t: replace_once(t, 'mode="numpy"', 'mode="pdpd" mode.auto_broadcast_axis="-1"'),
         patch_note="saved as numpy, then mode set to pdpd with mode.auto_broadcast_axis=\"-1\"",
         reference=lambda i: {"y": ref_pdpd(i["x"], [2, 3, 4, 5], -1)})

    # --- the four Broadcast layers of the Broadcast-3 spec, as whole models --------------
    def spec(n, mode, x_shape, target, axes=None):
        def build():
            x = param("data", x_shape, ov.Type.u8)
            t = const("target_shape", np.array(target, dtype=np.int64))
            args = [x, t] + ([const("axes_mapping", np.array(axes, dtype=np.int64))]
                             if axes is not None else [])
            b = named(o3.broadcast(*args, broadcast_spec=mode), "broadcast")
            return ov.Model([result("output", b)], [x], f"broadcast3_spec_example_{n}")
        return build

    spec_data = lambda shape: (np.arange(int(np.prod(shape))) % 251).astype(np.uint8).reshape(shape)
    case(name="spec_example_1_numpy", description="Broadcast-3 spec example 1: numpy, [16,1,1] to [1,16,50,50] (u8 data to keep the files small)",
         build=spec(1, "numpy", [16, 1, 1], [1, 16, 50, 50]), inputs={"data": spec_data([16, 1, 1])},
         reference=lambda i: {"output": ref_numpy(i["data"], [1, 16, 50, 50])})
    case(name="spec_example_2_explicit", description="Broadcast-3 spec example 2: explicit, [16] to [1,16,50,50] on axis [1]",
         build=spec(2, "explicit", [16], [1, 16, 50, 50], axes=[1]), inputs={"data": spec_data([16])},
         reference=lambda i: {"output": ref_explicit(i["data"], [1, 16, 50, 50], [1])})
    case(name="spec_example_3_explicit", description="Broadcast-3 spec example 3: explicit, [50,50] to [1,50,50,16] on axes [1,2]",
         build=spec(3, "explicit", [50, 50], [1, 50, 50, 16], axes=[1, 2]), inputs={"data": spec_data([50, 50])},
         reference=lambda i: {"output": ref_explicit(i["data"], [1, 50, 50, 16], [1, 2])})
    case(name="spec_example_4_bidirectional", description="Broadcast-3 spec example 4: bidirectional, [16,1,1] with [1,1,50,50]",
         build=spec(4, "bidirectional", [16, 1, 1], [1, 1, 50, 50]), inputs={"data": spec_data([16, 1, 1])},
         reference=lambda i: {"output": ref_bidirectional(i["data"], [1, 1, 50, 50])})

    # --- ShapeOf feeding target_shape ---------------------------------------------------
    def shapeof_v3_i32():
        x = param("x", [3, 1], F32)
        like = param("like", [2, 3, 4], ov.Type.u8)
        s = named(o3.shape_of(like, output_type="i32"), "shape_of_like")
        b = named(o3.broadcast(x, s, broadcast_spec="numpy"), "broadcast")
        return ov.Model([result("y", b)], [x, like], "shapeof_v3")
    case(name="v3_shapeof_i32_target", description="Broadcast-3 numpy to the shape of another tensor, through ShapeOf-3 with output_type i32",
         build=shapeof_v3_i32, inputs={"x": arange([3, 1]), "like": np.zeros([2, 3, 4], np.uint8)},
         reference=lambda i: {"y": ref_numpy(i["x"], [2, 3, 4])})

    def shapeof_v1():
        x = param("x", [3], F32)
        like = param("like", [2, 3, 4], F32)
        s = named(o1.shape_of(like), "shape_of_like")
        a = const("axes_mapping", np.array([1], dtype=np.int64))
        b = named(o1.broadcast(x, s, a, mode="explicit"), "broadcast")
        return ov.Model([result("y", b)], [x, like], "shapeof_v1")
    case(name="v1_shapeof_target_explicit", description="Broadcast-1 explicit to the shape of another tensor, through ShapeOf-1 (i64)",
         build=shapeof_v1, inputs={"x": arange([3]), "like": np.zeros([2, 3, 4], np.float32)},
         reference=lambda i: {"y": ref_explicit(i["x"], [2, 3, 4], [1])})

    # --- chains and several Results ----------------------------------------------------
    def chain():
        x = param("x", [3], I32)
        b1 = named(o3.broadcast(x, const("t1", np.array([2, 3], np.int64))), "first")
        b2 = named(o3.broadcast(b1, const("t2", np.array([2, 4, 3], np.int64)),
                                const("axes", np.array([0, 2], np.int64)), broadcast_spec="explicit"),
                   "second")
        return ov.Model([result("y", b2)], [x], "chain")
    case(name="chain_two_broadcasts", description="numpy [3] to [2,3], then explicit to [2,4,3] on axes [0,2]",
         build=chain, inputs={"x": np.array([10, -20, 30], np.int32)},
         reference=lambda i: {"y": ref_explicit(ref_numpy(i["x"], [2, 3]), [2, 4, 3], [0, 2])})

    def chain_shapeof():
        x = param("x", [3, 1], F32)
        z = param("z", [1], ov.Type.i16)
        b1 = named(o3.broadcast(x, const("t1", np.array([2, 3, 5], np.int64))), "first")
        s = named(o3.shape_of(b1), "shape_of_first")
        b2 = named(o3.broadcast(z, s, broadcast_spec="bidirectional"), "second")
        return ov.Model([result("y", b2)], [x, z], "chain_shapeof")
    case(name="chain_shapeof_of_broadcast", description="z broadcast to the shape of another Broadcast's output, through ShapeOf-3 (i64)",
         build=chain_shapeof, inputs={"x": arange([3, 1]), "z": np.array([-7], np.int16)},
         reference=lambda i: {"y": ref_bidirectional(i["z"], [2, 3, 5])})

    def several():
        x = param("x", [3, 1], F32)
        b1 = named(o3.broadcast(x, const("t1", np.array([2, 3, 4], np.int64))), "to_2_3_4")
        b2 = named(o3.broadcast(x, const("t2", np.array([1, 5], np.int64)),
                                broadcast_spec="bidirectional"), "with_1_5")
        s = named(o3.shape_of(b1), "shape")
        return ov.Model([result("a", b1), result("b", b2), result("shape_a", s),
                         result("x_again", x)], [x], "several_results")
    case(name="several_results", description="four Results: two Broadcasts of one input, the ShapeOf of one, and the input itself",
         build=several, inputs={"x": arange([3, 1])},
         reference=lambda i: {"a": ref_numpy(i["x"], [2, 3, 4]), "b": ref_bidirectional(i["x"], [1, 5]),
                              "shape_a": np.array([2, 3, 4], np.int64), "x_again": i["x"].copy()})

    # --- element types of the data -------------------------------------------------------
    special = {
        "f32": (ov.Type.f32, np.array([0x7FC00001, 0x80000000, 0x7F800000, 0xFF800000, 0x00000001, 0x7F7FFFFF],
                                      np.uint32).view(np.float32)),
        "f16": (ov.Type.f16, np.array([0x7E01, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x7BFF], np.uint16).view(np.float16)),
        "bf16": (ov.Type.bf16, np.array([0x7FC1, 0x8000, 0x7F80, 0xFF80, 0x0001, 0x7F7F], np.uint16)),
        "f64": (ov.Type.f64, np.array([0x7FF8000000000001, 0x8000000000000000, 0x7FF0000000000000,
                                       0x3FF0000000000001, 0x0000000000000001, 0x7FEFFFFFFFFFFFFF],
                                      np.uint64).view(np.float64)),
        "i8": (ov.Type.i8, np.array([-128, 127, 0, -1, 1, 42], np.int8)),
        "i16": (ov.Type.i16, np.array([-32768, 32767, 0, -1, 1, 4242], np.int16)),
        "i32": (ov.Type.i32, np.array([-2**31, 2**31 - 1, 0, -1, 1, 424242], np.int32)),
        "i64": (ov.Type.i64, np.array([-2**63, 2**63 - 1, 0, -1, 2**40 + 3, 4242424242], np.int64)),
        "u8": (ov.Type.u8, np.array([0, 255, 1, 254, 128, 42], np.uint8)),
        "u16": (ov.Type.u16, np.array([0, 65535, 1, 65534, 32768, 4242], np.uint16)),
        "u32": (ov.Type.u32, np.array([0, 2**32 - 1, 1, 2**32 - 2, 2**31, 424242], np.uint32)),
        "u64": (ov.Type.u64, np.array([0, 2**64 - 1, 1, 2**64 - 2, 2**63 + 1, 4242424242], np.uint64)),
        "boolean": (ov.Type.boolean, np.array([True, False, True, True, False, False])),
    }
    for tname, (et, values) in special.items():
        def build(et=et, tname=tname):
            x = param("x", [2, 1, 3], et)
            b = named(o3.broadcast(x, const("target_shape", np.array([2, 4, 3], np.int64))), "broadcast")
            return ov.Model([result("y", b)], [x], f"dtype_{tname}")
        x = values.reshape(2, 1, 3)
        case(name=f"dtype_{tname}", description=f"numpy [2,1,3] to [2,4,3] of {tname} data, with its extreme values (NaN payloads, -0, infinities, subnormals, min and max)",
             build=build, inputs={"x": x}, reference=lambda i: {"y": ref_numpy(i["x"], [2, 4, 3])})

    def string_param():
        x = param("x", [2, 1, 3], ov.Type.string)
        b = named(o3.broadcast(x, const("target_shape", np.array([2, 4, 3], np.int64))), "broadcast")
        return ov.Model([result("y", b)], [x], "dtype_string")
    case(name="dtype_string", description="numpy [2,1,3] to [2,4,3] of string data (empty, ASCII, accented, CJK, emoji)",
         build=string_param, inputs={"x": np.array(["", "a", "héllo", "日本語", "x y", "🙂"]).reshape(2, 1, 3)},
         reference=lambda i: {"y": ref_numpy(i["x"], [2, 4, 3])},
         openvino_fails="CPU plugin does not support string",
         notes="OpenVINO writes and reads string Parameters in IR, but its CPU plugin cannot run Broadcast on them; the expected output is numpy's.")

    def const_data():
        outs = []
        for tname, (et, values) in special.items():
            if tname == "bf16":
                t = ov.Tensor(ov.Type.bf16, [2, 1, 3])
                t.data[...] = values.reshape(2, 1, 3).view(np.float16)
                c = named(ov.op.Constant(t), f"data_{tname}")
            else:
                c = const(f"data_{tname}", values.reshape(2, 1, 3))
            b = named(o3.broadcast(c, const(f"target_{tname}", np.array([2, 4, 3], np.int64))),
                      f"broadcast_{tname}")
            outs.append(result(tname, b))
        return ov.Model(outs, [], "const_data")
    case(name="const_data_every_type", description="one Const of each numeric element type (read from the .bin) broadcast [2,1,3] to [2,4,3]; no Parameters",
         build=const_data, inputs={},
         reference=lambda i: {t: ref_numpy(v.reshape(2, 1, 3), [2, 4, 3]) for t, (_, v) in special.items()})

    def string_const():
        c = const("data", np.array(["ab", "", "héllo"]).reshape(3, 1))
        b = named(o3.broadcast(c, const("target_shape", np.array([3, 4], np.int64))), "broadcast")
        return ov.Model([result("y", b)], [], "string_const")
    case(name="string_const", description="a string Const (OpenVINO's packed string layout in the .bin) broadcast [3,1] to [3,4]",
         build=string_const, inputs={},
         reference=lambda i: {"y": ref_numpy(np.array(["ab", "", "héllo"]).reshape(3, 1), [3, 4])},
         notes="OpenVINO folds this constant graph and writes its output; in 2026.4 the process then dies freeing the strings (munmap_chunk(): invalid pointer). The output it wrote is bit-equal to numpy's.")

    # --- target_shape and axes_mapping of every integer type -----------------------------
    for it in INT_TYPES:
        case(name=f"target_and_axes_{it}", description=f"Broadcast-3 explicit with target_shape and axes_mapping of type {it}: [3,1] to [2,3,4] on axes [1,2]",
             build=v3("explicit", [3, 1], [2, 3, 4], axes=[1, 2], target_dtype=INT_TYPES[it], axes_dtype=INT_TYPES[it]),
             inputs={"x": arange([3, 1])}, reference=lambda i: {"y": ref_explicit(i["x"], [2, 3, 4], [1, 2])},
             openvino_fails="Buffer over-read" if it in NARROW_SHAPE_TYPES else "",
             notes=("OpenVINO 2026.4 cannot compile a Broadcast whose target_shape or axes_mapping "
                    f"is {it} (\"Buffer over-read\" reading the Constant); the expected output is numpy's.")
             if it in NARROW_SHAPE_TYPES else "")

    # --- dynamic shapes -----------------------------------------------------------------
    def target_param():
        x = param("x", [3, 1], F32)
        t = param("shape", [3], I64)
        b = named(o3.broadcast(x, t), "broadcast")
        return ov.Model([result("y", b)], [x, t], "target_from_parameter")
    case(name="target_from_parameter", description="target_shape is a Parameter: the output shape is known only at run time",
         build=target_param, inputs={"x": arange([3, 1]), "shape": np.array([2, 3, 4], np.int64)},
         reference=lambda i: {"y": ref_numpy(i["x"], [2, 3, 4])})

    def dyn_input():
        x = param("x", ov.PartialShape([-1, 1]), F32)
        b = named(o3.broadcast(x, const("target_shape", np.array([2, 1, 4], np.int64)),
                               broadcast_spec="bidirectional"), "broadcast")
        return ov.Model([result("y", b)], [x], "dynamic_input")
    case(name="dynamic_input_dim", description="a Parameter of shape [?,1], bidirectional with [2,1,4]: the output port is declared [2,-1,4]",
         build=dyn_input, inputs={"x": arange([3, 1])},
         reference=lambda i: {"y": ref_bidirectional(i["x"], [2, 1, 4])})

    def dyn_rank():
        x = param("x", ov.PartialShape.dynamic(), F32)
        z = param("z", [1], ov.Type.u16)
        s = named(o3.shape_of(x), "shape_of_x")
        b = named(o3.broadcast(z, s), "broadcast")
        return ov.Model([result("y", b)], [x, z], "dynamic_rank")
    case(name="dynamic_rank_input", description="a Parameter of any rank (shape \"...\"): the Broadcast to its shape has ports with no dims",
         build=dyn_rank, inputs={"x": np.zeros([2, 3], np.float32), "z": np.array([9], np.uint16)},
         reference=lambda i: {"y": ref_numpy(i["z"], [2, 3])},
         openvino_fails="doesn't support Parameter operation with dynamic rank",
         notes="OpenVINO writes and reads this IR, but its CPU plugin refuses a Parameter of dynamic rank; the expected output is numpy's.")

    # --- zero sizes and empty targets ---------------------------------------------------
    case(name="zero_size_output", description="numpy [1,3] to [0,3]: an empty output from non-empty data",
         build=v3("numpy", [1, 3], [0, 3]), inputs={"x": arange([1, 3])},
         reference=lambda i: {"y": ref_numpy(i["x"], [0, 3])})
    case(name="zero_size_data", description="numpy [0,1] to [0,3]: empty data",
         build=v3("numpy", [0, 1], [0, 3]), inputs={"x": np.zeros([0, 1], np.float32)},
         reference=lambda i: {"y": ref_numpy(i["x"], [0, 3])},
         openvino_fails="SIGFPE",
         notes="OpenVINO 2026.4 divides by the zero input dim (reference Broadcast's repeats = out / in) and dies with SIGFPE; the expected output is numpy's.")
    case(name="empty_target_scalar", description="numpy of a scalar with an empty target_shape constant: a rank-0 output",
         build=v3("numpy", [], []), inputs={"x": f32(3.25)},
         reference=lambda i: {"y": ref_numpy(i["x"], [])},
         openvino_fails="ptr is Null",
         notes="OpenVINO 2026.4 cannot read back the IR it saved with an empty target_shape constant (\"ptr is Null\" in shape inference); the expected output is numpy's.")

    # --- IR version 10 ------------------------------------------------------------------
    case(name="ir_v10_explicit", description="an IR version 10 file: Broadcast-3 explicit [3,2] to [2,3,4,2] on axes [1,3]",
         build=v3("explicit", [3, 2], [2, 3, 4, 2], axes=[1, 3]), inputs={"x": arange([3, 2])},
         patch=to_ir_v10, patch_note="saved as version 11, then written as version 10: version=\"10\", no names or output_names attributes",
         reference=lambda i: {"y": ref_explicit(i["x"], [2, 3, 4, 2], [1, 3])})


# ----------------------------------------------------------------------------------------
# Generating good cases.
# ----------------------------------------------------------------------------------------

def write_npy(path: Path, arr: np.ndarray):
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, c_order(arr), allow_pickle=False)


def result_names(case_dir: Path):
    """Result and Parameter layer names, read from the .xml (OpenVINO may fail to read it)."""
    import xml.etree.ElementTree as ET
    layers = ET.parse(case_dir / "model.xml").getroot().find("layers")
    names = lambda kind: [l.get("name") for l in layers.findall("layer") if l.get("type") == kind]
    return names("Result"), names("Parameter")


def generate_case(c: Case, version: str):
    d = HERE / c.name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    save(c.build(), d)
    if c.patch:
        xml = (d / "model.xml").read_text()
        (d / "model.xml").write_text(c.patch(xml))
    for name, arr in c.inputs.items():
        write_npy(d / "inputs" / f"{name}.npy", arr)
    results, params = result_names(d)
    assert sorted(params) == sorted(c.inputs), (c.name, params)
    reference = c.reference(c.inputs)
    assert sorted(results) == sorted(reference), (c.name, results, list(reference))
    ov_out = run_openvino(d)
    outputs = {}
    for name in results:
        ref = reference[name]
        got = ov_out.outputs.get(name)
        if got is not None and got.shape != ref.shape:
            raise SystemExit(f"{c.name}/{name}: OpenVINO shape {got.shape} != numpy {ref.shape}")
        if got is not None and bit_equal(got, ref):
            entry = {"expected_from": "openvino", "openvino": "bit-equal to the numpy reference"}
            if not ov_out.ok:
                entry["openvino"] += " (written before the process failed)"
            expected = got
        elif got is not None:
            lossy = [n for n, v in lossy_variants(ref) if same_values(got, v)]
            if not lossy:
                raise SystemExit(f"{c.name}/{name}: OpenVINO {got!r} differs from numpy {ref!r}")
            entry = {"expected_from": "numpy",
                     "openvino": f"lossy, same shape: its values are numpy's with the known CPU fault '{lossy[0]}'"}
            expected = ref
        else:
            if ov_out.ok:
                raise SystemExit(f"{c.name}/{name}: OpenVINO ran but wrote no output")
            if not c.openvino_fails or c.openvino_fails not in ov_out.failure:
                raise SystemExit(f"{c.name}: OpenVINO failed unexpectedly: {ov_out.failure}")
            entry = {"expected_from": "numpy", "openvino": "no output: " + ov_out.failure}
            expected = ref
        if expected.dtype.kind == "U":
            expected = np.asarray(expected, dtype=str)
        write_npy(d / "expected" / f"{name}.npy", expected)
        outputs[name] = entry
    if c.openvino_fails and ov_out.ok:
        print(f"note: {c.name}: OpenVINO no longer fails ({c.openvino_fails})", file=sys.stderr)
    meta = {
        "description": c.description,
        "ir": f"saved by openvino.save_model, OpenVINO {version}" + (f"; {c.patch_note}" if c.patch else ""),
        "openvino": "ran" if ov_out.ok else ov_out.failure,
        "outputs": outputs,
    }
    if c.notes:
        meta["notes"] = c.notes
    (d / "case.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    print(f"{c.name}: " + ", ".join(f"{n} from {e['expected_from']}" for n, e in outputs.items()))


# ----------------------------------------------------------------------------------------
# Bad cases: each a mutation of a small good model, or hand-written.
# ----------------------------------------------------------------------------------------

@dataclass
class Bad:
    name: str
    description: str
    error: str                                   # substring of bcast's message
    base: str = "numpy"                          # which base model to mutate
    xml: Optional[Callable[[str], str]] = None   # mutation of the .xml text
    bin: Optional[Callable[[bytes], Optional[bytes]]] = None  # mutation of the .bin (None: no file)
    inputs: Optional[dict] = None                # inputs/ written when the error is a run-time one
    notes: str = ""
    openvino: str = ""                           # set: OpenVINO is not run, this is recorded instead


def base_models(tmp: Path):
    """Small good models, saved by OpenVINO, that bad cases are mutated from."""
    ov, o1, o3 = ov_modules()
    out = {}

    def keep(name, model):
        d = tmp / name
        d.mkdir()
        save(model, d)
        out[name] = ((d / "model.xml").read_text(), (d / "model.bin").read_bytes())

    x = param("x", [3, 1], ov.Type.f32)
    b = named(o3.broadcast(x, const("target_shape", np.array([2, 3, 6], np.int64))), "broadcast")
    keep("numpy", ov.Model([result("y", b)], [x], "base_numpy"))

    x = param("x", [3, 1], ov.Type.f32)
    b = named(o3.broadcast(x, const("target_shape", np.array([2, 3, 6], np.int64)),
                           const("axes_mapping", np.array([1, 2], np.int64)), broadcast_spec="explicit"),
              "broadcast")
    keep("explicit", ov.Model([result("y", b)], [x], "base_explicit"))

    x = param("x", [3, 1], ov.Type.f32)
    b = named(o1.broadcast(x, const("target_shape", np.array([2, 3, 6], np.int64)), mode="numpy"), "broadcast")
    keep("v1_numpy", ov.Model([result("y", b)], [x], "base_v1_numpy"))

    x = param("x", [3, 1], ov.Type.f32)
    w = param("w", [2], ov.Type.f32)
    b = named(o3.broadcast(x, const("target_shape", np.array([2, 3, 6], np.int64))), "broadcast")
    keep("two_params", ov.Model([result("y", b), result("w_again", w)], [x, w], "base_two_params"))

    x = param("x", [3, 1], ov.Type.f32)
    like = param("like", [2, 3, 6], ov.Type.f32)
    b = named(o3.broadcast(x, named(o3.shape_of(like), "shape_of_like")), "broadcast")
    keep("shapeof", ov.Model([result("y", b)], [x, like], "base_shapeof"))

    c = const("data", np.array([True, False, True]).reshape(3, 1))
    b = named(o3.broadcast(c, const("target_shape", np.array([3, 2], np.int64))), "broadcast")
    keep("bool_const", ov.Model([result("y", b)], [], "base_bool_const"))

    c = const("data", np.array(["ab", "", "héllo"]).reshape(3, 1))
    b = named(o3.broadcast(c, const("target_shape", np.array([3, 2], np.int64))), "broadcast")
    keep("string_const", ov.Model([result("y", b)], [], "base_string_const"))

    x = param("x", ov.PartialShape([-1, 1]), ov.Type.f32)
    b = named(o3.broadcast(x, const("target_shape", np.array([2, 1, 4], np.int64)),
                           broadcast_spec="bidirectional"), "broadcast")
    keep("dynamic", ov.Model([result("y", b)], [x], "base_dynamic"))
    return out


def set_i64(blob: bytes, index: int, value: int) -> bytes:
    b = bytearray(blob)
    b[index * 8:(index + 1) * 8] = int(value).to_bytes(8, "little", signed=True)
    return bytes(b)


X31 = {"x": np.arange(3, dtype=np.float32).reshape(3, 1)}

CYCLE_XML = """<?xml version="1.0"?>
<net name="cycle" version="11">
\t<layers>
\t\t<layer id="0" name="target_shape" type="Const" version="opset1">
\t\t\t<data element_type="i64" shape="1" offset="0" size="8" />
\t\t\t<output><port id="0" precision="I64"><dim>1</dim></port></output>
\t\t</layer>
\t\t<layer id="1" name="first" type="Broadcast" version="opset3">
\t\t\t<data mode="numpy" />
\t\t\t<input><port id="0" precision="FP32"><dim>1</dim></port><port id="1" precision="I64"><dim>1</dim></port></input>
\t\t\t<output><port id="2" precision="FP32"><dim>1</dim></port></output>
\t\t</layer>
\t\t<layer id="2" name="second" type="Broadcast" version="opset3">
\t\t\t<data mode="numpy" />
\t\t\t<input><port id="0" precision="FP32"><dim>1</dim></port><port id="1" precision="I64"><dim>1</dim></port></input>
\t\t\t<output><port id="2" precision="FP32"><dim>1</dim></port></output>
\t\t</layer>
\t\t<layer id="3" name="y" type="Result" version="opset1">
\t\t\t<input><port id="0" precision="FP32"><dim>1</dim></port></input>
\t\t</layer>
\t</layers>
\t<edges>
\t\t<edge from-layer="2" from-port="2" to-layer="1" to-port="0" />
\t\t<edge from-layer="0" from-port="0" to-layer="1" to-port="1" />
\t\t<edge from-layer="1" from-port="2" to-layer="2" to-port="0" />
\t\t<edge from-layer="0" from-port="0" to-layer="2" to-port="1" />
\t\t<edge from-layer="2" from-port="2" to-layer="3" to-port="0" />
\t</edges>
</net>
"""


def define_bad():
    r = replace_once
    return [
        Bad("unsupported_layer_type", "the Broadcast layer's type changed to Tile", "(Tile): type Tile version opset1 is not one bcast runs",
            xml=lambda t: r(t, 'type="Broadcast" version="opset3"', 'type="Tile" version="opset1"')),
        Bad("unknown_opset", "the Broadcast layer's version changed to opset99", "type Broadcast version opset99 is not one bcast runs",
            xml=lambda t: r(t, 'type="Broadcast" version="opset3"', 'type="Broadcast" version="opset99"')),
        Bad("missing_bin", "model.bin removed", "layer 1 'target_shape' (Const): cannot read its weights file",
            bin=lambda b: None),
        Bad("short_bin", "model.bin cut to 20 of its 24 bytes", "layer 1 'target_shape' (Const): its data at offset 0 with size 24 reaches past the end of the weights (20 bytes)",
            bin=lambda b: b[:20]),
        Bad("offset_past_end", "the Const's offset set to 4096", "its data at offset 4096 with size 24 reaches past the end of the weights (24 bytes)",
            xml=lambda t: r(t, 'offset="0" size="24"', 'offset="4096" size="24"')),
        Bad("const_size_mismatch", "the Const's size set to 16 for 3 i64 values", "size 16 does not match 3 elements of i64 (shape [3]), which take 24 bytes",
            xml=lambda t: r(t, 'offset="0" size="24"', 'offset="0" size="16"')),
        Bad("edge_to_missing_port", "an edge into input port 7 of the Broadcast", "layer 2 'broadcast' (Broadcast): has no input port 7",
            xml=lambda t: r(t, 'to-layer="2" to-port="1"', 'to-layer="2" to-port="7"')),
        Bad("edge_from_missing_port", "an edge from output port 5 of the Parameter", "layer 0 'x' (Parameter): has no output port 5",
            xml=lambda t: r(t, 'from-layer="0" from-port="0"', 'from-layer="0" from-port="5"')),
        Bad("edge_to_missing_layer", "an edge into layer 42, which does not exist", "no layer has id 42",
            xml=lambda t: r(t, 'to-layer="3" to-port="0"', 'to-layer="42" to-port="0"')),
        Bad("unconnected_input", "the edge into the Broadcast's target_shape removed", "layer 2 'broadcast' (Broadcast): input port 1 is not connected to anything",
            xml=lambda t: r(t, '<edge from-layer="1" from-port="0" to-layer="2" to-port="1" />', '')),
        Bad("two_edges_into_one_port", "a second edge into the Broadcast's data port", "layer 2 'broadcast' (Broadcast): input port 0 has more than one edge into it",
            xml=lambda t: r(t, '<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />',
                           '<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />\n\t\t<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />')),
        Bad("duplicate_layer_id", "the Const given the Parameter's id 0", "two layers have id 0: 'x' and 'target_shape'",
            xml=lambda t: r(t, '<layer id="1" name="target_shape"', '<layer id="0" name="target_shape"')),
        Bad("cycle", "two Broadcasts that read each other (hand-written)", "the graph has a cycle through layer 1 'first' (Broadcast)",
            xml=lambda t: CYCLE_XML, bin=lambda b: (1).to_bytes(8, "little")),
        Bad("no_result", "the Result layer and its edge removed", "the model has no Result layer",
            xml=lambda t: re.sub(r'\t\t<layer id="3" name="y" type="Result".*?</layer>\n', '',
                                 r(t, '<edge from-layer="2" from-port="2" to-layer="3" to-port="0" />', ''), flags=re.S)),
        Bad("unknown_ir_version", "<net version=\"7\">", "IR version '7' is not supported",
            xml=lambda t: r(t, 'version="11"', 'version="7"')),
        Bad("malformed_xml", "the .xml cut in the middle", "not well-formed XML",
            xml=lambda t: t[: len(t) // 2]),
        Bad("unsupported_element_type", "the Parameter's element type set to u4", "layer 0 'x' (Parameter): element type 'u4' is not supported",
            xml=lambda t: r(r(t, 'element_type="f32"', 'element_type="u4"'), 'precision="FP32" names="x"', 'precision="U4" names="x"')),
        Bad("unknown_mode", "mode=\"max\"", "layer 2 'broadcast' (Broadcast): attribute 'mode' is 'max', but Broadcast-3 takes",
            xml=lambda t: r(t, 'mode="numpy"', 'mode="max"')),
        Bad("bidirectional_in_opset1", "an opset1 Broadcast with mode=\"bidirectional\"", "attribute 'mode' is 'bidirectional', but Broadcast-1 takes numpy, explicit, none or pdpd",
            base="v1_numpy", xml=lambda t: r(t, 'mode="numpy"', 'mode="bidirectional"')),
        Bad("explicit_without_axes", "an opset3 Broadcast with mode=\"explicit\" and two inputs", "has 2 input ports, but Broadcast-3 takes 3 (data, target_shape, axes_mapping) in explicit mode",
            xml=lambda t: r(t, 'mode="numpy"', 'mode="explicit"')),
        Bad("shapeof_bad_output_type", "ShapeOf-3 with output_type=\"f32\"", "attribute 'output_type' is 'f32', but ShapeOf-3 outputs i32 or i64",
            base="shapeof", xml=lambda t: r(t, '<data output_type="i64" />', '<data output_type="f32" />')),
        Bad("port_dims_mismatch", "the Broadcast's output port declared [2,3,7]", "layer 2 'broadcast' (Broadcast): output port 2 is declared [2,3,7] in the .xml, but bcast computes [2,3,6]",
            xml=lambda t: r(t, "<dim>6</dim>\n\t\t\t\t</port>\n\t\t\t</output>", "<dim>7</dim>\n\t\t\t\t</port>\n\t\t\t</output>")),
        Bad("port_precision_mismatch", "the Broadcast's output port declared FP16", "output port 2 is declared f16 in the .xml, but bcast computes f32",
            xml=lambda t: r(t, '<port id="2" precision="FP32"', '<port id="2" precision="FP16"')),
        Bad("port_dims_mismatch_at_run_time", "a dynamic model whose Broadcast output is declared [2,-1,5]; refused at load time: the inferred [2,?,4] cannot meet it (issue 15)", "output port 2 is declared [2,?,5] in the .xml, but bcast infers [2,?,4]",
            base="dynamic", xml=lambda t: r(t, "<dim>4</dim>\n\t\t\t\t</port>\n\t\t\t</output>", "<dim>5</dim>\n\t\t\t\t</port>\n\t\t\t</output>"),
            inputs=X31),
        Bad("negative_target_value", "target_shape [2,-3,6]", "layer 2 'broadcast' (Broadcast): target_shape value -3 at index 1 is negative",
            bin=lambda b: set_i64(b, 1, -3)),
        Bad("negative_axes_value", "axes_mapping [-2,2]", "axes_mapping value -2 at index 0 is negative",
            base="explicit", bin=lambda b: set_i64(b, 3, -2)),
        Bad("float_target_shape", "target_shape declared f64 (same bytes)", "target_shape must be an integer tensor, but is f64",
            xml=lambda t: r(r(t, 'element_type="i64" shape="3"', 'element_type="f64" shape="3"'),
                            '<port id="0" precision="I64">', '<port id="0" precision="FP64">').replace(
                                '<port id="1" precision="I64">', '<port id="1" precision="FP64">')),
        Bad("target_not_1d", "target_shape of shape [1,3]", "target_shape must be 1-D, but has shape [1,3]",
            xml=lambda t: r(t, 'element_type="i64" shape="3"', 'element_type="i64" shape="1,3"').replace(
                '<port id="0" precision="I64">\n\t\t\t\t\t<dim>3</dim>', '<port id="0" precision="I64">\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t\t<dim>3</dim>').replace(
                '<port id="1" precision="I64">\n\t\t\t\t\t<dim>3</dim>', '<port id="1" precision="I64">\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t\t<dim>3</dim>')),
        Bad("numpy_rule_broken", "target_shape [2,4,6] for data [3,1]", "numpy broadcast: data dim 3 at axis 0 cannot become 4",
            bin=lambda b: set_i64(b, 1, 4)),
        Bad("explicit_axes_not_increasing", "axes_mapping [2,1]", "explicit broadcast: axes [2, 1] must be strictly increasing",
            base="explicit", bin=lambda b: set_i64(set_i64(b, 3, 2), 4, 1)),
        Bad("duplicate_explicit_axes", "data [3,3] placed on axes [1,1] of [2,3,3]", "explicit broadcast: axes [1, 1] must be strictly increasing",
            base="explicit", xml=lambda t: t.replace('shape="3,1"', 'shape="3,3"').replace(
                '<dim>3</dim>\n\t\t\t\t\t<dim>1</dim>', '<dim>3</dim>\n\t\t\t\t\t<dim>3</dim>').replace(
                '<dim>2</dim>\n\t\t\t\t\t<dim>3</dim>\n\t\t\t\t\t<dim>6</dim>', '<dim>2</dim>\n\t\t\t\t\t<dim>3</dim>\n\t\t\t\t\t<dim>3</dim>'),
            bin=lambda b: set_i64(set_i64(set_i64(b, 2, 3), 3, 1), 4, 1),
            inputs={"x": np.arange(9, dtype=np.float32).reshape(3, 3)},
            notes="bcast refuses duplicate explicit axes; OpenVINO only checks that they are sorted, and runs it (see the openvino field)."),
        Bad("pdpd_target_one_takes_data_dim", "pdpd axis 1, data [3,4], target [2,3,1]", "pdpd broadcast: data dim 4 at axis 1 cannot become 1",
            xml=lambda t: r(t, 'mode="numpy"', 'mode="pdpd" mode.mode.axis="1"').replace('shape="3,1"', 'shape="3,4"').replace(
                '<dim>3</dim>\n\t\t\t\t\t<dim>1</dim>', '<dim>3</dim>\n\t\t\t\t\t<dim>4</dim>').replace(
                '<dim>2</dim>\n\t\t\t\t\t<dim>3</dim>\n\t\t\t\t\t<dim>6</dim>', '<dim>2</dim>\n\t\t\t\t\t<dim>3</dim>\n\t\t\t\t\t<dim>4</dim>'),
            bin=lambda b: set_i64(b, 2, 1),
            inputs={"x": np.arange(12, dtype=np.float32).reshape(3, 4)},
            notes="bcast's PDPD rule only stretches the data; OpenVINO's lets a target dim of 1 take the data's dim, and runs it (see the openvino field)."),
        Bad("boolean_const_not_0_or_1", "a boolean Const whose second byte is 2", "layer 0 'data' (Const): boolean element 1 is byte 2, not 0 or 1",
            base="bool_const", bin=lambda b: b[:1] + b"\x02" + b[2:]),
        Bad("string_const_not_utf8", "a string Const whose bytes are not UTF-8", "layer 0 'data' (Const): string 2 is not UTF-8",
            base="string_const", bin=lambda b: b[:23] + b"\xff" + b[24:]),
        Bad("missing_parameter_input", "a model of two Parameters given only one input", "layer 1 'w' (Parameter): no input was given for it",
            base="two_params", inputs=X31,
            openvino="not run: an OpenVINO infer request has a tensor for every input from the start, so no input can be missing there"),
        Bad("input_of_wrong_type", "an i32 input for an f32 Parameter", "layer 0 'x' (Parameter): the input given is i32 [3,1], but the Parameter is f32 [3,1]",
            inputs={"x": np.arange(3, dtype=np.int32).reshape(3, 1)}),
        Bad("input_of_wrong_shape", "a [4,1] input for a [3,1] Parameter", "the input given is f32 [4,1], but the Parameter is f32 [3,1]",
            inputs={"x": np.arange(4, dtype=np.float32).reshape(4, 1)}),
    ]


def generate_bad(b: Bad, bases):
    d = BAD_DIR / b.name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    xml, blob = bases[b.base]
    if b.xml:
        xml = b.xml(xml)
    if b.bin:
        blob = b.bin(blob)
    (d / "model.xml").write_text(xml)
    if blob is not None:
        (d / "model.bin").write_bytes(blob)
    for name, arr in (b.inputs or {}).items():
        write_npy(d / "inputs" / f"{name}.npy", arr)
    (d / "error.txt").write_text(b.error + "\n")
    ov_run = b.openvino or run_openvino_lenient(d)
    meta = {"description": b.description, "made_from": f"the '{b.base}' base model saved by OpenVINO, then mutated by generate.py" if b.name != "cycle" else "hand-written",
            "bcast_error_contains": b.error, "openvino": ov_run}
    if b.notes:
        meta["notes"] = b.notes
    (d / "case.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    print(f"bad {b.name}: openvino {ov_run[:100]}")


def portable(message: str) -> str:
    """The message without this checkout's absolute path."""
    return message.replace(str(HERE.parent.parent) + "/", "")


def run_openvino_lenient(d: Path) -> str:
    """What OpenVINO does with a bad model: refuses it, crashes, or runs it (with what)."""
    has_inputs = (d / "inputs").exists()
    if not has_inputs:
        # Give OpenVINO inputs of the declared shapes so that it gets as far as it can.
        ov, _, _ = ov_modules()
        try:
            m = ov.Core().read_model(str(d / "model.xml"))
        except Exception as e:  # noqa: BLE001 - recorded, not raised
            return "refuses to read it: " + portable(str(e).strip().splitlines()[-1][:300])
        for p in m.get_parameters():
            ps = p.get_partial_shape()
            shape = [3 if dim.is_dynamic else dim.get_length() for dim in ps] if ps.rank.is_static else [3]
            write_npy(d / "inputs" / f"{p.get_friendly_name()}.npy", np.zeros(shape, p.get_element_type().to_dtype()))
    out = run_openvino(d)
    again = run_openvino(d) if out.ok else None
    if not has_inputs and (d / "inputs").exists():
        shutil.rmtree(d / "inputs")
    if out.ok:
        stable = all(bit_equal(v, again.outputs.get(k, v[:0])) for k, v in out.outputs.items())
        if stable:
            shown = {k: (v.tolist() if v.size <= 36 else f"shape {list(v.shape)}") for k, v in out.outputs.items()}
            values = f"outputs {json.dumps(shown, ensure_ascii=False)}"
        else:
            shapes = {k: list(v.shape) for k, v in out.outputs.items()}
            values = (f"output shapes {json.dumps(shapes)}, whose values differ between two runs "
                      "(it reads memory it never wrote)")
        inputs = "" if has_inputs else " on zero inputs"
        return f"accepts it and runs it{inputs}; {values}"
    return "fails: " + portable(out.failure[:400])


# ----------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="generate only this case")
    parser.add_argument("--openvino-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.openvino_child:
        openvino_child(Path(args.openvino_child[0]), Path(args.openvino_child[1]))
        return
    ov, _, _ = ov_modules()
    version = ov.__version__.split("-")[0]
    define_cases()
    for c in CASES:
        if not args.only or args.only == c.name:
            generate_case(c, version)
    with tempfile.TemporaryDirectory() as tmp:
        bases = base_models(Path(tmp))
        for b in define_bad():
            if not args.only or args.only == b.name:
                generate_bad(b, bases)


if __name__ == "__main__":
    main()
