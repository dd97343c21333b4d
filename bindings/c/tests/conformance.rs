//! The conformance suite's element-wise cases (`conformance/eltwise/<group>/<case>/`: a
//! case.json and .npy files whose expected outputs come from OpenVINO's reference,
//! onnx.reference, Paddle or numpy, by the committed generators) through the C ABI: each
//! case's op by its C code through `bcast_eltwise`, the output compared bit for bit with
//! the reference (within the case's `ulp` where it gives one), its shape with
//! `bcast_eltwise_shape_n`'s; each case marked `error` refused with a status. Cases of
//! strings are left out (C has no string buffers); every other case runs.

use std::ffi::{c_int, c_void, CStr};
use std::path::{Path, PathBuf};

use bcast::{DType, DTypeKind, EltwiseOp, ShiftDirection, Tensor};
use bcast_c::bcast_status::{BCAST_ERR_OTHER, BCAST_ERR_PANIC, BCAST_OK};
use serde_json::Value;

/// The groups of the op table's newer ops: none of their cases may be left out.
const NEW_GROUPS: [&str; 8] = [
    "variadic",
    "bitwise",
    "shift",
    "prelu",
    "fake_quantize",
    "onnx_mod",
    "onnx_div",
    "onnx_pow",
];

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/eltwise")
}

/// Pointer to the first element of a row-major tensor, and its bytes.
macro_rules! raw_rows {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        fn raw(t: &Tensor) -> (*const c_void, usize) {
            match t {
                $(Tensor::$v(a) => {
                    assert!(a.is_standard_layout(), "a .npy is read row-major");
                    (a.as_ptr().cast(), std::mem::size_of_val(a.as_slice().unwrap()))
                })*
            }
        }

        /// The tensor of `dtype` and `shape` whose elements are `bytes` (a bool byte other
        /// than 0 or 1 is a failure: the output was not written).
        fn tensor_of(dtype: DType, shape: &[usize], bytes: &[u8]) -> Result<Tensor, String> {
            match dtype {
                $(DType::$v => read_row!($kind, $t, shape, bytes),)*
            }
        }
    };
}

macro_rules! read_row {
    (Text, $t:ty, $shape:expr, $bytes:expr) => {
        unreachable!("no bcast_dtype is a string")
    };
    (Bool, $t:ty, $shape:expr, $bytes:expr) => {{
        if let Some(b) = $bytes.iter().find(|&&b| b > 1) {
            return Err(format!("a bool output byte is {b}"));
        }
        let v: Vec<bool> = $bytes.iter().map(|&b| b == 1).collect();
        Ok(Tensor::from(
            ndarray::ArrayD::from_shape_vec($shape, v).unwrap(),
        ))
    }};
    ($kind:ident, $t:ty, $shape:expr, $bytes:expr) => {{
        let v: Vec<$t> = $bytes
            .chunks_exact(std::mem::size_of::<$t>())
            // SAFETY: each chunk holds the bytes of one element, read unaligned.
            .map(|c| unsafe { c.as_ptr().cast::<$t>().read_unaligned() })
            .collect();
        Ok(Tensor::from(
            ndarray::ArrayD::from_shape_vec($shape, v).unwrap(),
        ))
    }};
}
bcast::dtype_table!(raw_rows!);

/// Elements `n` ulps apart at most: same sign, bit patterns (as integers of the element's
/// width) within `n`, or the same bits.
fn within_ulps(expected: &[u8], actual: &[u8], size: usize, n: u64) -> Result<(), String> {
    for (i, (e, a)) in expected
        .chunks_exact(size)
        .zip(actual.chunks_exact(size))
        .enumerate()
    {
        let int = |b: &[u8]| {
            let mut le = [0u8; 8];
            le[..size].copy_from_slice(b);
            u64::from_le_bytes(le)
        };
        let (x, y) = (int(e), int(a));
        let sign = 1u64 << (size * 8 - 1);
        if x != y && ((x & sign) != (y & sign) || x.abs_diff(y) > n) {
            return Err(format!(
                "element {i}: expected bits {x:#x}, got {y:#x} (more than {n} ulps apart)"
            ));
        }
    }
    Ok(())
}

fn message() -> String {
    // SAFETY: never NULL, NUL-terminated, valid until the next call on this thread.
    unsafe { CStr::from_ptr(bcast_c::bcast_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// The op and `levels` argument of a case.
fn op_of(case: &Value) -> (EltwiseOp, i64) {
    let name = match case["op"].as_str() {
        Some("select") => "select",
        _ => case["eltwise"]
            .as_str()
            .expect("an eltwise case names its op"),
    };
    let mut op: EltwiseOp = name.parse().expect("the case's op is in the op table");
    let mut levels = 0;
    let attrs = case.get("attrs").and_then(Value::as_object);
    for (key, value) in attrs.into_iter().flatten() {
        match (key.as_str(), &mut op) {
            ("levels", EltwiseOp::FakeQuantize { .. }) => levels = value.as_i64().unwrap(),
            ("direction", EltwiseOp::BitShift { direction }) => {
                *direction = value.as_str().unwrap().parse::<ShiftDirection>().unwrap()
            }
            ("fmod", EltwiseOp::OnnxMod { fmod }) => *fmod = value.as_i64().unwrap() == 1,
            _ => panic!("attribute {key} of {name}"),
        }
    }
    if let (Some(p), EltwiseOp::Divide { pythondiv }) = (case.get("pythondiv"), &mut op) {
        *pythondiv = p.as_bool().unwrap();
    }
    (op, levels)
}

/// Runs one case; `Ok(false)` when it is left out (strings).
fn run_case(dir: &Path) -> Result<bool, String> {
    let text = std::fs::read_to_string(dir.join("case.json")).map_err(|e| e.to_string())?;
    let case: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let (op, levels) = op_of(&case);
    let names = case["inputs"].as_array().expect("inputs");
    let inputs: Vec<Tensor> = names
        .iter()
        .map(|n| bcast::npy::read(dir.join(n.as_str().unwrap())).expect("a readable .npy"))
        .collect();
    if inputs.iter().any(|t| t.dtype().kind() == DTypeKind::Text) {
        return Ok(false);
    }
    let ab: u32 = match case.get("auto_broadcast").and_then(Value::as_str) {
        None | Some("numpy") => 1,
        Some("none") => 0,
        Some("pdpd") => 2,
        Some(other) => panic!("auto_broadcast {other}"),
    };
    let axis = case.get("axis").and_then(Value::as_i64).unwrap_or(-1);
    let dtypes: Vec<u32> = inputs
        .iter()
        .map(|t| bcast_c::dtype_code(t.dtype()).unwrap())
        .collect();
    let ptrs: Vec<*const c_void> = inputs.iter().map(|t| raw(t).0).collect();
    let shapes: Vec<*const usize> = inputs.iter().map(|t| t.shape().as_ptr()).collect();
    let ranks: Vec<usize> = inputs.iter().map(|t| t.shape().len()).collect();
    let n = inputs.len();
    let code = op.c_code();
    let mut shape = [0usize; 64];
    let mut rank = 0usize;
    // SAFETY: every array holds `n` entries, each shape its rank, `shape` 64.
    let shape_status = unsafe {
        bcast_c::bcast_eltwise_shape_n(
            code,
            n,
            shapes.as_ptr(),
            ranks.as_ptr(),
            ab,
            axis,
            shape.as_mut_ptr(),
            shape.len(),
            &mut rank,
        )
    };
    let run = |out: &mut [u64], capacity: usize| -> c_int {
        // SAFETY: as above; every input holds its shape's elements; `out` holds `capacity`
        // elements of the output type (8-byte words).
        unsafe {
            bcast_c::bcast_eltwise(
                code,
                n,
                dtypes.as_ptr(),
                ptrs.as_ptr(),
                shapes.as_ptr(),
                ranks.as_ptr(),
                ab,
                axis,
                levels,
                out.as_mut_ptr().cast(),
                capacity,
                1,
            )
        }
    };
    let bad = [BCAST_ERR_PANIC as c_int, BCAST_ERR_OTHER as c_int];
    if case.get("error").and_then(Value::as_bool) == Some(true) {
        let mut out = vec![0u64; 1 << 12];
        let status = run(&mut out, 1 << 12);
        if status == BCAST_OK as c_int || bad.contains(&status) {
            return Err(format!("status {status} for an error case ({})", message()));
        }
        return Ok(true);
    }
    let expected = bcast::npy::read(dir.join("out0.npy")).expect("out0.npy");
    if shape_status != 0 || shape[..rank] != *expected.shape() {
        return Err(format!(
            "bcast_eltwise_shape_n: status {shape_status}, shape {:?}, expected {:?} ({})",
            &shape[..rank],
            expected.shape(),
            message()
        ));
    }
    let (ptr, len) = raw(&expected);
    // SAFETY: the expected tensor's own row-major elements.
    let want = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    let size = expected.dtype().size();
    // Two fills: an output the call did not write cannot match both.
    for fill in [0xa5u8, 0x5a] {
        let mut out = vec![u64::from_ne_bytes([fill; 8]); len / 8 + 1];
        let status = run(&mut out, expected.len());
        if status != BCAST_OK as c_int {
            return Err(format!("status {status}: {}", message()));
        }
        // SAFETY: the words' bytes, `len` of them written by the call.
        let got = unsafe { std::slice::from_raw_parts(out.as_ptr().cast::<u8>(), len) };
        tensor_of(expected.dtype(), expected.shape(), got)?;
        match case.get("ulp").and_then(Value::as_u64) {
            Some(n) => within_ulps(want, got, size, n)?,
            None if want != got => {
                let actual = tensor_of(expected.dtype(), expected.shape(), got)?;
                return Err(format!("expected {expected:?}, got {actual:?}"));
            }
            None => {}
        }
    }
    Ok(true)
}

#[test]
fn every_eltwise_case_through_bcast_eltwise() {
    let mut groups: Vec<PathBuf> = std::fs::read_dir(suite())
        .expect("conformance/eltwise")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    groups.sort();
    let (mut ran, mut left_out, mut failures) = (0, Vec::new(), Vec::new());
    for group in &groups {
        let gname = group.file_name().unwrap().to_string_lossy().into_owned();
        let mut cases: Vec<PathBuf> = std::fs::read_dir(group)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("case.json").is_file())
            .collect();
        cases.sort();
        for case in cases {
            let name = format!("{gname}/{}", case.file_name().unwrap().to_string_lossy());
            match run_case(&case) {
                Ok(true) => ran += 1,
                Ok(false) => left_out.push(name),
                Err(why) => failures.push(format!("{name}: {why}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        ran + failures.len(),
        failures.join("\n")
    );
    let new_left_out: Vec<&String> = left_out
        .iter()
        .filter(|n| NEW_GROUPS.iter().any(|g| n.starts_with(&format!("{g}/"))))
        .collect();
    assert!(new_left_out.is_empty(), "left out: {new_left_out:?}");
    for g in NEW_GROUPS {
        assert!(suite().join(g).is_dir(), "the suite has no group {g}");
    }
    assert!(ran > 1500, "only {ran} cases ran (left out: {left_out:?})");
}
