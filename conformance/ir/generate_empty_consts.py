#!/usr/bin/env python3
"""Generates conformance/ir/empty_const_<type>/: zero-element constants as OpenVINO saves them.

    python3 conformance/ir/generate_empty_consts.py

Requirements: conformance/ir/requirements.txt (OpenVINO 2026.4.1 from PyPI, numpy).

OpenVINO 2026.4 saves a zero-element Const with size="1" in the .xml (one byte of the .bin
that it never reads) and reads such a model back and runs it. Each case holds one Const of
shape [0] of one element type, saved by openvino.save_model:
  - Result "empty" reads the Const directly (its expected output: an empty array of the type);
  - Result "y" broadcasts a scalar Parameter to [2,3]: for integer types in explicit mode with
    the empty Const as its axes_mapping (the issue's model), otherwise in numpy mode.
Expected outputs come from OpenVINO, checked against numpy as in generate.py, whose case
machinery (and case folder format) this script reuses. A string Const is saved with its
exact packed size (8 bytes: a count and one offset, both 0); its case is here for
completeness.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate as g  # noqa: E402


def define_cases():
    ov, o1, o3 = g.ov_modules()
    types = {
        "boolean": (ov.Type.boolean, np.bool_), "i8": (ov.Type.i8, np.int8),
        "i16": (ov.Type.i16, np.int16), "i32": (ov.Type.i32, np.int32),
        "i64": (ov.Type.i64, np.int64), "u8": (ov.Type.u8, np.uint8),
        "u16": (ov.Type.u16, np.uint16), "u32": (ov.Type.u32, np.uint32),
        "u64": (ov.Type.u64, np.uint64), "f16": (ov.Type.f16, np.float16),
        "bf16": (ov.Type.bf16, np.uint16), "f32": (ov.Type.f32, np.float32),
        "f64": (ov.Type.f64, np.float64), "string": (ov.Type.string, np.str_),
    }
    for tname, (et, npdt) in types.items():
        integer = tname in g.INT_TYPES

        def build(et=et, npdt=npdt, tname=tname, integer=integer):
            x = g.param("x", [], ov.Type.f32)
            target = g.const("target_shape", np.array([2, 3], np.int64))
            # Made as a user makes it (from an empty array, or a type and an empty list), and
            # placed after target_shape in the .bin: OpenVINO then writes size="1".
            if tname == "bf16":
                c = ov.op.Constant(ov.Type.bf16, ov.Shape([0]), [])
            elif tname == "string":
                c = ov.op.Constant(np.array([], dtype=str))
            else:
                c = ov.op.Constant(np.zeros([0], npdt))
            c = g.named(c, "empty_const")
            if integer:
                b = o3.broadcast(x, target, c, broadcast_spec="explicit")
            else:
                b = o3.broadcast(x, target)
            b = g.named(b, "broadcast")
            return ov.Model([g.result("y", b), g.result("empty", c)], [x], f"empty_const_{tname}")

        x = np.array(2.5, np.float32)
        g.case(
            name=f"empty_const_{tname}",
            description=(f"a zero-element {tname} Const, which OpenVINO saves with size=\"1\": "
                         + ("the empty axes_mapping of a scalar broadcast explicitly to [2,3]"
                            if integer else "read by a Result beside a numpy broadcast of a scalar to [2,3]")),
            build=build, inputs={"x": x},
            reference=lambda i, npdt=npdt: {"y": np.broadcast_to(i["x"], (2, 3)).copy(),
                                            "empty": np.zeros([0], npdt)},
        )


def run_openvino(case_dir):
    """generate.run_openvino, except that an empty string output, which OpenVINO's Python API
    returns as an empty list (numpy makes that float64), is read as an empty string array."""
    out = RUN_OPENVINO(case_dir)
    if case_dir.name == "empty_const_string" and "empty" in out.outputs:
        empty = out.outputs["empty"]
        assert empty.size == 0, empty
        out.outputs["empty"] = empty.astype("<U1")
    return out


RUN_OPENVINO = g.run_openvino
g.run_openvino = run_openvino


def main():
    ov, _, _ = g.ov_modules()
    version = ov.__version__.split("-")[0]
    define_cases()
    for c in g.CASES:
        g.generate_case(c, version)


if __name__ == "__main__":
    main()
