#!/usr/bin/env python3
"""Writes the .npy fixtures that tests/npy.rs and tests/cli.rs read, with numpy.

    python3 tests/data/make_npy.py        # rewrites tests/data/npy/

Outputs, all in tests/data/npy/:
- NAME.npy: a valid file written by numpy (every npy dtype bcast reads, both byte orders,
  C and Fortran order, rank 0, zero-size, format versions 1.0, 2.0 and 3.0);
- canonical/NAME.npy: for each valid fixture that is not already so, the same array as
  `numpy.save` writes it in C order, little-endian, with the narrowest unicode width: the
  exact bytes bcast's writer must produce for what it read from NAME.npy;
- bad_*.npy: malformed or unsupported files;
- expected.json: for each valid fixture, the dtype (bcast's name), the shape and the values
  this script put in, flattened in C (logical) order; floats as the integer bit patterns of
  their own width (so NaN payloads and -0.0 are exact); and for each bad file the NpyError
  variant that must reject it.

The values in expected.json come from the Python data below, not from reading the files
back. The script is deterministic: running it twice gives the same bytes.
"""

import io
import json
import pathlib
import shutil

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "npy"

BCAST_NAME = {
    ("b", 1): "boolean",
    ("i", 1): "i8",
    ("i", 2): "i16",
    ("i", 4): "i32",
    ("i", 8): "i64",
    ("u", 1): "u8",
    ("u", 2): "u16",
    ("u", 4): "u32",
    ("u", 8): "u64",
    ("f", 2): "f16",
    ("f", 4): "f32",
    ("f", 8): "f64",
}

# Floats given by bit pattern so that the interesting ones (NaN payloads, -0.0, subnormals)
# are exact whatever numpy does with float arithmetic.
F16_BITS = [0x0000, 0x8000, 0x3C00, 0xC100, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x7E01]
F32_BITS = [
    0x00000000,
    0x80000000,
    0x3F800000,
    0xC0200000,
    0x7F7FFFFF,
    0x7F800000,
    0xFF800000,
    0x7FC00000,
    0x00000001,
    0x7FC00001,
]
F64_BITS = [
    0x0000000000000000,
    0x8000000000000000,
    0x3FF0000000000000,
    0xC004000000000000,
    0x7FEFFFFFFFFFFFFF,
    0x7FF0000000000000,
    0xFFF0000000000000,
    0x7FF8000000000000,
    0x0000000000000001,
    0xFFF0000000000001,
]


def floats(bits, width, shape=None):
    a = np.array(bits, dtype=f"<u{width}").view(f"<f{width}")
    return a.reshape(shape) if shape is not None else a


def strings_2d():
    return np.array([["ab", "c"], ["", "xyz"]], dtype="<U5")


def valid_arrays():
    """(name, array, fortran, version): every array is built here from literal data."""
    ints = {
        "i1": [-128, -1, 0, 1, 127],
        "i2": [-32768, -2, 0, 300, 32767],
        "i4": [-(2**31), -1, 0, 7, 2**31 - 1],
        "i8": [-(2**63), -1, 0, 2**40 + 3, 2**63 - 1],
        "u1": [0, 1, 128, 255],
        "u2": [0, 1, 40000, 65535],
        "u4": [0, 1, 3_000_000_000, 2**32 - 1],
        "u8": [0, 1, 2**63, 2**64 - 1],
    }
    v = []
    # Every dtype, little-endian (or byte-order-free), C order.
    v.append(("le_b1", np.array([[True, False, True], [False, False, True]]), False, None))
    for code, values in ints.items():
        order = "|" if code.endswith("1") else "<"
        v.append((f"le_{code}", np.array(values, dtype=order + code), False, None))
    v.append(("le_f2", floats(F16_BITS, 2), False, None))
    v.append(("le_f4", floats(F32_BITS, 4, (2, 5)), False, None))
    v.append(("le_f8", floats(F64_BITS, 8), False, None))
    v.append(("le_U", np.array(["a", "héllo", "€", "😀x", ""]), False, None))
    v.append(("le_U_wide", strings_2d(), False, None))
    v.append(("le_U_inner_nul", np.array(["a\0b", "c"]), False, None))
    # Big-endian.
    for code in ["i2", "i4", "i8", "u2", "u4", "u8"]:
        v.append((f"be_{code}", np.array(ints[code], dtype=">" + code), False, None))
    v.append(("be_f2", floats(F16_BITS, 2).astype(">f2"), False, None))
    v.append(("be_f4", floats(F32_BITS, 4).astype(">f4"), False, None))
    v.append(("be_f8", floats(F64_BITS, 8, (5, 2)).astype(">f8"), False, None))
    v.append(("be_U3", np.array(["abc", "é", ""], dtype=">U3"), False, None))
    # Fortran order (numpy writes fortran_order True for F-contiguous, non-C-contiguous data).
    v.append(("f_f4", np.arange(6, dtype="<f4").reshape(2, 3) + 0.5, True, None))
    v.append(("f_i8", np.arange(24, dtype="<i8").reshape(2, 3, 4) - 5, True, None))
    v.append(("f_be_f8", floats(F64_BITS[:6], 8, (3, 2)).astype(">f8"), True, None))
    v.append(("f_U", np.array([["a", "bc"], ["déf", ""]]), True, None))
    v.append(("f_b1", np.array([[True, False], [False, False], [True, True]]), True, None))
    v.append(("f_u2", np.arange(6, dtype="<u2").reshape(2, 1, 3) * 1000, True, None))
    # Rank 0.
    v.append(("scalar_f8", np.array(3.25, dtype="<f8"), False, None))
    v.append(("scalar_U", np.array("hi"), False, None))
    v.append(("scalar_U_empty", np.array(""), False, None))
    v.append(("scalar_b1", np.array(True), False, None))
    v.append(("scalar_be_i2", np.array(-7, dtype=">i2"), False, None))
    # Zero-size.
    v.append(("empty_f4", np.zeros((0,), dtype="<f4"), False, None))
    v.append(("empty_i4_2x0x3", np.zeros((2, 0, 3), dtype="<i4"), False, None))
    v.append(("empty_U_0x2", np.zeros((0, 2), dtype="<U1"), False, None))
    v.append(("empty_b1_3x0", np.zeros((3, 0), dtype="|b1"), False, None))
    # Other format versions.
    v.append(("v2_f4", np.array([1.5, -2.0], dtype="<f4"), False, (2, 0)))
    v.append(("v3_U", np.array(["ü", "ok"]), False, (3, 0)))
    # Small inputs for tests/cli.rs.
    v.append(("cli_f32_16x1x1", np.arange(16, dtype="<f4").reshape(16, 1, 1) * 1.5, False, None))
    v.append(("cli_i32_3x1", np.array([[7], [-8], [9]], dtype="<i4"), False, None))
    v.append(("cli_be_i4_3", np.array([1, -2, 70000], dtype=">i4"), False, None))
    v.append(("cli_f_u1_2x3", np.array([[1, 2, 3], [4, 5, 6]], dtype="|u1"), True, None))
    v.append(("cli_f32_16", np.arange(16, dtype="<f4") * 0.25 - 1, False, None))
    v.append(("cli_i32_4", np.array([10, 20, 30, 40], dtype="<i4"), False, None))
    v.append(("cli_i32_scalar", np.array(5, dtype="<i4"), False, None))
    v.append(("cli_u16_3", np.array([1, 500, 65535], dtype="<u2"), False, None))
    return v


def layout(a, fortran):
    # Not np.ascontiguousarray, which turns a rank-0 array into rank 1.
    return np.asfortranarray(a) if fortran else np.array(a, order="C")


def save(a, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, a)
    else:
        np.lib.format.write_array(buf, a, version=version)
    return buf.getvalue()


def canonical(a):
    """The array as bcast writes it: C order, little-endian, narrowest unicode width."""
    if a.dtype.kind == "U":
        width = max([len(str(s)) for s in a.ravel()] + [1])
        return np.array(a, dtype=f"<U{width}", order="C")
    return np.array(a, dtype=a.dtype.newbyteorder("<"), order="C")


def expected_entry(a):
    flat = a.ravel(order="C")
    kind, size = a.dtype.kind, a.dtype.itemsize
    entry = {"shape": list(a.shape)}
    if kind == "U":
        entry["dtype"] = "string"
        entry["values"] = [str(s) for s in flat]
    elif kind == "f":
        entry["dtype"] = BCAST_NAME[(kind, size)]
        native = flat.astype(flat.dtype.newbyteorder("="))
        entry["bits"] = [int(b) for b in native.view(f"u{size}")]
    elif kind == "b":
        entry["dtype"] = "boolean"
        entry["values"] = [bool(x) for x in flat]
    else:
        entry["dtype"] = BCAST_NAME[(kind, size)]
        entry["values"] = [int(x) for x in flat]
    return entry


def header_v1(dict_text, data):
    """A version 1.0 file with a hand-written header dictionary."""
    header = dict_text.encode("latin1")
    total = 10 + len(header) + 1
    header += b" " * ((64 - total % 64) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data


def handmade_valid_files():
    """(name, bytes, expected entry, the same array for numpy to save canonically): valid
    files that numpy's writer does not produce."""
    return [
        # numpy writes a zero-size array as C order; other writers may say Fortran.
        (
            "f_empty_b1_3x0",
            header_v1("{'descr': '|b1', 'fortran_order': True, 'shape': (3, 0), }", b""),
            {"dtype": "boolean", "shape": [3, 0], "values": []},
            np.zeros((3, 0), dtype="|b1"),
        ),
        # Keys in another order, double quotes, no trailing comma.
        (
            "odd_header_i2",
            header_v1(
                '{"shape": (2,), "fortran_order": False, "descr": "<i2"}',
                (513).to_bytes(2, "little") + (-1).to_bytes(2, "little", signed=True),
            ),
            {"dtype": "i16", "shape": [2], "values": [513, -1]},
            np.array([513, -1], dtype="<i2"),
        ),
    ]


def bad_files():
    """(name, bytes, NpyError variant)."""
    good = save(np.arange(6, dtype="<f4").reshape(2, 3))
    header_end = good.index(b"\n") + 1
    b = []
    b.append(("bad_zero_length", b"", "Truncated"))
    b.append(("bad_truncated_preamble", good[:7], "Truncated"))
    b.append(("bad_truncated_header", good[:40], "Truncated"))
    b.append(("bad_truncated_data", good[:-3], "Truncated"))
    b.append(("bad_header_only", good[:header_end], "Truncated"))
    b.append(("bad_magic", b"\x93NUMPX" + good[6:], "Magic"))
    b.append(("bad_not_npy", b"hello, this is not an npy file\n", "Magic"))
    b.append(("bad_version_4", good[:6] + b"\x04\x00" + good[8:], "Version"))
    # Same header length, different shape: claims 4 elements while 6 follow.
    b.append(("bad_header_lies_shape", good.replace(b"(2, 3)", b"(2, 2)", 1), "SizeMismatch"))
    # Claims 9 elements while 6 follow: indistinguishable from a cut file.
    b.append(("bad_header_lies_larger", good.replace(b"(2, 3)", b"(3, 3)", 1), "Truncated"))
    b.append(
        (
            "bad_header_missing_key",
            header_v1("{'descr': '<f4', 'shape': (2,), }", b"\0" * 8),
            "Header",
        )
    )
    b.append(
        (
            "bad_header_negative_dim",
            header_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", b""),
            "Header",
        )
    )
    b.append(("bad_complex64", save(np.array([1 + 2j, 3 - 4j], dtype="<c8")), "UnsupportedDtype"))
    b.append(
        (
            "bad_object",
            save_object(np.array([1, "two", None], dtype=object)),
            "UnsupportedDtype",
        )
    )
    b.append(
        (
            "bad_structured",
            save(np.array([(1, 2.0)], dtype=[("a", "<i4"), ("b", "<f8")])),
            "UnsupportedDtype",
        )
    )
    b.append(
        (
            "bad_datetime64",
            save(np.array(["2020-01-01", "2021-06-30"], dtype="datetime64[D]")),
            "UnsupportedDtype",
        )
    )
    b.append(("bad_bytes_S3", save(np.array([b"abc", b"d"], dtype="S3")), "UnsupportedDtype"))
    b.append(
        (
            "bad_bool_byte_2",
            header_v1("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", b"\x01\x02"),
            "InvalidData",
        )
    )
    # numpy stores a lone surrogate as UTF-32; a Rust String cannot hold it.
    b.append(("bad_unicode_surrogate", save(np.array(["\ud800x"])), "InvalidData"))
    return b


def save_object(a):
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=True)
    return buf.getvalue()


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    (OUT / "canonical").mkdir(parents=True)
    valid, invalid = {}, {}
    for name, a, fortran, version in valid_arrays():
        arr = layout(a, fortran)
        data = save(arr, version)
        # The header must say what the case claims, or the case tests something else.
        assert (b"'fortran_order': True" in data) == fortran, name
        assert arr.shape == a.shape, name
        (OUT / f"{name}.npy").write_bytes(data)
        entry = expected_entry(a)
        canon = save(canonical(a))
        if canon != data:
            (OUT / "canonical" / f"{name}.npy").write_bytes(canon)
            entry["canonical"] = f"canonical/{name}.npy"
        else:
            entry["canonical"] = f"{name}.npy"
        valid[f"{name}.npy"] = entry
    for name, data, entry, same in handmade_valid_files():
        (OUT / f"{name}.npy").write_bytes(data)
        (OUT / "canonical" / f"{name}.npy").write_bytes(save(same))
        entry["canonical"] = f"canonical/{name}.npy"
        valid[f"{name}.npy"] = entry
    for name, data, variant in bad_files():
        (OUT / f"{name}.npy").write_bytes(data)
        invalid[f"{name}.npy"] = variant
    # One fixture per line keeps the file short and its diffs readable.
    lines = ["{", ' "valid": {']
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in valid.items()]
    lines[-1] = lines[-1].rstrip(",")
    lines += [" },", ' "invalid": {']
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in invalid.items()]
    lines[-1] = lines[-1].rstrip(",")
    lines += [" }", "}", ""]
    text = "\n".join(lines)
    assert json.loads(text) == {"valid": valid, "invalid": invalid}
    (OUT / "expected.json").write_text(text, encoding="utf-8")
    print(f"wrote {len(valid)} valid and {len(invalid)} bad fixtures to {OUT}")


if __name__ == "__main__":
    main()
